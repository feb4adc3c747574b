"""The pool chart's wiring: every answer's pool is drawn (none for an empty answer); a bar opens or
offers the row actions."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QPoint

from memhtml_desktop.ui.kit.row_actions import Row, build_menu
from memhtml_desktop.ui.pool.pool_chart import PoolChart
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.ui.session.driver import SessionDriver


class PoolController(QObject):
    def __init__(self, ctx: PaneContext, driver: SessionDriver, chart: PoolChart) -> None:
        super().__init__(chart)
        self.ctx, self.chart = ctx, chart
        driver.answered.connect(lambda answer: chart.set_pool(answer.pool))
        chart.open_requested.connect(ctx.session.open)
        chart.menu_requested.connect(self._menu)
        self._shown_menu: Any = None

    def _menu(self, path: str, title: str, where: QPoint) -> None:
        menu = build_menu(self.ctx.row_actions, Row(path, title), self.chart)
        menu.popup(where)
        self._shown_menu = menu
