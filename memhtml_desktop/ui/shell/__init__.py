"""The window around the panes: MainWindow (a thin composition), the menus, the status bar, store
choice, Settings, About and the theme. A change to a pane's behaviour does not belong here."""
