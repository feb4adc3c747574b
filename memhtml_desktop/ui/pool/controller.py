"""The pool chart's wiring: every pool the driver fetches is drawn; a bar opens or offers the row actions."""

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
        driver.pooled.connect(chart.set_pool)
        driver.searched.connect(self._searched)
        chart.open_requested.connect(ctx.session.open)
        chart.menu_requested.connect(self._menu)
        self._shown_menu: Any = None

    def _searched(self, result: Any) -> None:
        pool = self.chart.pool()
        if not result.hits or (pool is not None and (pool.query, pool.scope) != (result.query, result.scope)):
            self.chart.set_pool(None)  # the next pool follows; an empty answer has none

    def _menu(self, path: str, title: str, where: QPoint) -> None:
        menu = build_menu(self.ctx.row_actions, Row(path, title), self.chart)
        menu.popup(where)
        self._shown_menu = menu
