"""Geometry for the admin page's server-rendered SVG charts; the templates only draw it."""

from dataclasses import dataclass
from datetime import datetime

from django.utils.html import format_html_join

from peers.metrics import Metrics

WIDTH = 560
LABEL_WIDTH = 150
BAR_ROOM = 300
# The latency chart spans the page: a longer bar, and room for its figures after it.
LATENCY_ROOM = 560
LATENCY_WIDTH = 1040
ROW_HEIGHT = 26
COLUMNS_HEIGHT = 110


@dataclass
class Bar:
    label: str
    value: int | float
    note: str
    y: int
    width: float
    low: float = 0  # where a tick sits (the p50 of a latency bar), 0 for none

    @property
    def text_y(self) -> int:
        return self.y + 16

    @property
    def value_x(self) -> float:
        return round(LABEL_WIDTH + self.width + 6, 1)


# One <rect> per bar, rendered here: a week has 168 of them per chart, and the
# template language would take longer to draw them than the database to count them.
COLUMN = '<rect x="{}" y="{}" width="{}" height="{}" class="{}"><title>{}</title></rect>'


def seconds_words(value: float | None) -> str:
    if value is None:
        return "—"
    if value < 10:
        return f"{value:.2f} s"
    if value < 120:
        return f"{value:.0f} s"
    return f"{value / 60:.1f} min"


def bars(rows: list[tuple[str, int, str]]) -> dict:
    """Horizontal bars, longest = BAR_ROOM; rows are (label, value, note)."""
    top = max((value for _, value, _ in rows), default=0) or 1
    drawn = [
        Bar(label, value, note, y=i * ROW_HEIGHT, width=round(BAR_ROOM * value / top, 1))
        for i, (label, value, note) in enumerate(rows)
    ]
    return frame(drawn, width=WIDTH, room=BAR_ROOM)


def frame(drawn: list[Bar], *, width: int, room: int) -> dict:
    return {
        "bars": drawn,
        "height": max(len(drawn), 1) * ROW_HEIGHT,
        "width": width,
        "label_x": LABEL_WIDTH - 6,
        "bar_x": LABEL_WIDTH,
        "room": room,
        "note_x": LABEL_WIDTH + room + 10,
    }


def path_bars(metrics: Metrics) -> dict:
    rows = [
        (path.replace("_", " "), figures["delivered"], "delivered")
        for path, figures in metrics.paths.items()
    ]
    return bars(rows)


def latency_bars(metrics: Metrics) -> dict:
    """Per path: a bar to p95 with a tick at p50, on one scale (the slowest p95)."""
    top = max((f["p95_seconds"] or 0 for f in metrics.paths.values()), default=0) or 1
    drawn = []
    for i, (path, figures) in enumerate(metrics.paths.items()):
        p50, p95 = figures["p50_seconds"] or 0, figures["p95_seconds"] or 0
        note = (
            f"p50 {seconds_words(figures['p50_seconds'])} · p95 "
            f"{seconds_words(figures['p95_seconds'])} · max {seconds_words(figures['max_seconds'])}"
            if figures["delivered"]
            else "nothing delivered"
        )
        width = round(LATENCY_ROOM * p95 / top, 1)
        bar = Bar(path.replace("_", " "), p95, note, y=i * ROW_HEIGHT, width=width)
        bar.low = round(LABEL_WIDTH + LATENCY_ROOM * p50 / top, 1)
        drawn.append(bar)
    return frame(drawn, width=LATENCY_WIDTH, room=LATENCY_ROOM)


def refusal_bars(metrics: Metrics) -> dict:
    return bars([(code, n, "") for code, n in metrics.refusals.items()])


def columns(points: list[tuple[datetime, int]], *, what: str, css: str) -> dict:
    """Vertical bars over time, tallest = the chart's height."""
    top = max((value for _, value in points), default=0)
    step = WIDTH / max(len(points), 1)
    drawn = []
    for i, (start, value) in enumerate(points):
        height = COLUMNS_HEIGHT * value / top if top else 0
        title = f"{start:%b %-d %H:%M} UTC: {value} {what}"
        x, y = round(i * step + 0.5, 1), round(COLUMNS_HEIGHT - height, 1)
        drawn.append((x, y, round(max(step - 1, 1), 1), round(height, 1), css, title))
    return {
        "rects": format_html_join("", COLUMN, drawn),
        "top": top,
        "width": WIDTH,
        "height": COLUMNS_HEIGHT,
        "first": points[0][0] if points else None,
        "last": points[-1][0] if points else None,
    }


def all_charts(metrics: Metrics) -> dict:
    sent = [(start, n) for start, n, _ in metrics.over_time]
    wakes = [(start, w) for start, _, w in metrics.over_time]
    return {
        "paths": path_bars(metrics),
        "latency": latency_bars(metrics),
        "refusals": refusal_bars(metrics),
        "sent": columns(sent, what="messages", css="bar"),
        "wakes": columns(wakes, what="wakes", css="bar-warn"),
    }
