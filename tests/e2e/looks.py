"""What a page must be to show a user, measured in the browser: nothing wider than the
screen, every visible text at a contrast of at least 4.5:1 against what it sits on
(computed from the styles), nothing that should be reachable outside the viewport."""

MIN_CONTRAST = 4.5

# For every visible element with its own text: its colour (or SVG fill) against the first
# opaque background among it and its ancestors (the page's when none), as WCAG computes it.
CONTRAST_JS = """
(min) => {
  const rgb = (s) => { const m = s.match(/[\\d.]+/g); return m ? m.map(Number) : [0, 0, 0, 0]; };
  const alpha = (c) => (c.length > 3 ? c[3] : 1);
  const lum = (c) => {
    const f = (v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (alpha(c) > 0.5) return c;
    }
    return rgb(getComputedStyle(document.body).backgroundColor);
  };
  const bad = [];
  for (const el of document.querySelectorAll("body *")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.visibility === "hidden" || box.width < 2 || box.height < 2) continue;
    if (el.closest("[hidden], .visually-hidden, details:not([open]) > :not(summary)")) continue;
    const svgText = el instanceof SVGElement;
    const colour = rgb(svgText ? style.fill : style.color);
    if (alpha(colour) < 0.5 || parseFloat(style.opacity) < 0.5) continue;
    const back = background(svgText ? el.closest("svg").parentElement : el);
    const [a, b] = [lum(colour), lum(back)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const name = el.tagName.toLowerCase() + "." + (el.className.baseVal ?? el.className);
    const words = el.textContent.trim().slice(0, 30);
    if (ratio < min) bad.push(`${name} "${words}" ${ratio.toFixed(2)}`);
  }
  return bad;
}
"""


def low_contrast(page) -> list[str]:
    return page.evaluate(CONTRAST_JS, MIN_CONTRAST)


def assert_readable(page) -> None:
    bad = low_contrast(page)
    assert bad == [], f"{page.url}: text below {MIN_CONTRAST}:1 — {bad[:12]}"


def assert_fits(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"{page.url} is {width}px wide"


def assert_inside(page, selector: str) -> None:
    """Every matching visible element lies wholly inside the viewport's width."""
    boxes = page.locator(selector).evaluate_all(
        "els => els.filter(e => e.getClientRects().length)"
        ".map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })"
    )
    width = page.viewport_size["width"]
    assert boxes, f"nothing matches {selector}"
    for left, right in boxes:
        assert left >= 0 and right <= width, f"{selector} spans {left}..{right} of {width}px"
