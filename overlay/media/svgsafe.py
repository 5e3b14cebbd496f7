"""SVG uploads: a strict allow-list, rebuilt from the parse, or refused with the reason.

No well-kept Python SVG sanitiser exists (the PyPI candidates are prototypes or unmaintained),
so this parses with defusedxml (no DTDs, entities or external resolution: XML bombs and XXE
stop at the parser) and keeps only drawing elements and presentation attributes. Anything that
can run code or reach outside the file — scripts, event handlers, foreignObject, <image>,
external `href`s, `url(...)` to anything but `#id`, CSS `@import` — refuses the whole file: an
operator gets told what is wrong instead of a logo silently missing half its parts. Editor
leftovers (Inkscape/Sodipodi metadata, comments) are dropped. The output is the re-serialised
tree, never the uploaded bytes.

Two more doors (docs/SECURITY.md, Uploads):
- What a browser will draw is bounded, not just the file: a 2 kB file whose `<use>`s each use
  ten copies of the level below draws a billion shapes and hangs every browser that opens it.
  The drawn size is counted with every reference expanded (`<use>`, `url(#id)` patterns, clips,
  masks, filters, markers once per vertex) and refused past MAX_DRAWN elements or
  MAX_PATH_DRAWN characters of path data; nesting is refused past MAX_DEPTH.
- CSS is read as a browser reads it: comments dropped and escapes decoded (`\\75 rl(` is
  `url(`) before it is judged, and a `<style>` holds text only.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
XML = "http://www.w3.org/XML/1998/namespace"
# Editors' own namespaces: their elements and attributes are dropped, not refused.
EDITOR_NS = {
    "http://www.inkscape.org/namespaces/inkscape", "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://creativecommons.org/ns#",
    "http://purl.org/dc/elements/1.1/", "http://ns.adobe.com/AdobeIllustrator/10.0/",
    "http://www.bohemiancoding.com/sketch/ns", "http://www.serif.com/",
}
ELEMENTS = {
    "svg", "g", "defs", "symbol", "use", "title", "desc", "path", "rect", "circle", "ellipse", "line",
    "polyline", "polygon", "text", "tspan", "textPath", "linearGradient", "radialGradient", "stop",
    "clipPath", "mask", "pattern", "marker", "style", "switch",
    "filter", "feGaussianBlur", "feOffset", "feBlend", "feColorMatrix", "feFlood", "feComposite",
    "feMerge", "feMergeNode", "feDropShadow", "feMorphology",
}
DROPPED = {"metadata"}
# Named so the refusal says what it is.
DANGEROUS = {"script": "a script", "foreignObject": "a foreignObject (HTML inside the SVG)",
             "image": "an embedded or linked picture (<image>)", "iframe": "an iframe",
             "a": "a link (<a>)", "animate": "an animation that can change links (<animate>)",
             "set": "an animation that can change links (<set>)", "handler": "an event handler",
             "listener": "an event listener", "feImage": "a linked picture (<feImage>)"}
ATTRIBUTES = {
    "id", "class", "style", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "fx", "fy", "fr",
    "width", "height", "d", "points", "viewBox", "preserveAspectRatio", "transform", "version",
    "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity", "stroke-linecap",
    "stroke-linejoin", "stroke-miterlimit", "stroke-dasharray", "stroke-dashoffset", "opacity",
    "color", "display", "visibility", "clip-path", "clip-rule", "mask", "filter", "overflow",
    "font-family", "font-size", "font-weight", "font-style", "font-variant", "letter-spacing",
    "word-spacing", "text-anchor", "dominant-baseline", "alignment-baseline", "baseline-shift",
    "text-decoration", "writing-mode", "dx", "dy", "rotate", "textLength", "lengthAdjust",
    "offset", "stop-color", "stop-opacity", "gradientUnits", "gradientTransform", "spreadMethod",
    "patternUnits", "patternContentUnits", "patternTransform", "clipPathUnits", "maskUnits",
    "maskContentUnits", "markerWidth", "markerHeight", "markerUnits", "refX", "refY", "orient",
    "marker-start", "marker-mid", "marker-end", "filterUnits", "primitiveUnits", "in", "in2",
    "result", "stdDeviation", "mode", "type", "values", "operator", "k1", "k2", "k3", "k4",
    "flood-color", "flood-opacity", "radius", "href", "startOffset", "method", "spacing",
    "shape-rendering", "text-rendering", "image-rendering", "color-interpolation",
    "color-interpolation-filters", "paint-order", "vector-effect", "mix-blend-mode", "isolation",
    "enable-background", "space", "lang", "systemLanguage", "media",
}
URL = re.compile(r"url\s*\(\s*(['\"]?)(.*?)\1\s*\)", re.I | re.S)
ANY_URL = re.compile(r"url\s*\(", re.I)
INSIDE = re.compile(r"\s*#[^\s'\"()]+\s*")  # url(#id): a reference inside the file
# CSS functions and words that fetch or run something (CSS Images 4, Values 5, old IE and Gecko).
CSS_FETCHING = {"image-set(": "image-set()", "-webkit-image-set(": "image-set()", "image(": "image()",
                "cross-fade(": "cross-fade()", "-webkit-cross-fade(": "cross-fade()", "element(": "element()",
                "-moz-element(": "element()", "src(": "src()", "paint(": "paint()", "expression(": "expression()",
                "javascript:": "javascript:", "behavior:": "behavior", "-moz-binding": "-moz-binding"}
# At-rules a logo's stylesheet may hold; any other (@import, @namespace, @font-feature-values…) refuses.
AT_RULES = {"media", "keyframes", "-webkit-keyframes", "supports", "font-face"}
CSS_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.S)
CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})(?:\r\n|[ \t\n\r\f])?|(\r\n|[\n\r\f])|(.))", re.S)
MAX_DEPTH = 48                # elements inside elements; an editor's logo nests a dozen
MAX_DRAWN = 50_000            # elements drawn once every reference is expanded; a detailed logo draws a few thousand
MAX_PATH_DRAWN = 10_000_000   # characters of path data (`d`, `points`) drawn, likewise: a whole 10 MB file's worth
PAINTS = {"linearGradient", "radialGradient"}  # a reference to one draws nothing more
REFERRING = ("fill", "stroke", "clip-path", "mask", "filter", "marker-start", "marker-mid", "marker-end", "style")
NUMBER = re.compile(r"[-+]?(?:\d*\.\d+|\d+)")
# Filters cost a browser in proportion to their parameters in drawn pixels (issue 37: a huge
# feGaussianBlur or feMorphology took 11 s to paint; a morphology of radius 300 px over a full-HD
# picture 12 s in Chromium, one of 10 px 1 s). Bounded as fractions of the picture's own size
# (its viewBox, else width/height), the transforms above the filtered element multiplied in, so
# they hold however large the picture is drawn. A logo's drop shadow or glow needs a few %.
FLOAT = re.compile(r"[-+]?(?:\d*\.\d+|\d+\.?)(?:[eE][-+]?\d+)?%?")
MAX_BLUR = 0.05        # stdDeviation (feGaussianBlur, feDropShadow), CSS blur()/drop-shadow(): 5 % of the picture
MAX_MORPH = 0.01       # feMorphology's radius: 1 % of the picture (19 px drawn full HD)
MAX_REGION = 5.0       # a <filter>'s region (x, y, width, height): 500 % of its shape, or 5 pictures in user units
CSS_FILTER = re.compile(r"(blur|drop-shadow)\s*\(([^)]*)\)", re.I)
TRANSFORM = re.compile(r"(matrix|scale)\s*\(([^)]*)\)", re.I)


class UnsafeSvg(ValueError):
    """The SVG cannot be taken; the message says why in an operator's words."""


def _local(name: str) -> tuple[str, str]:
    if name.startswith("{"):
        ns, _, local = name[1:].partition("}")
        return ns, local
    return "", name


def css_text(text: str) -> str:
    """CSS as the browser's tokenizer sees it: comments gone, escapes (`\\75 `, `\\u`) decoded."""
    def decode(m: re.Match) -> str:
        if m.group(1):
            code = int(m.group(1), 16)
            return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
        return "" if m.group(2) else m.group(3)
    return CSS_ESCAPE.sub(decode, CSS_COMMENT.sub("", text))


def _check_css(text: str, where: str, sheet: bool = False) -> None:
    """Refuses CSS (a stylesheet, a style attribute or a presentation attribute's value) that
    could fetch or run anything, judged on the decoded text."""
    if "\\" not in text and "/*" not in text and "(" not in text and ":" not in text and "@" not in text:
        return  # plain values (numbers, colours, names): nothing to decode or judge
    css = css_text(text)
    low = css.lower()
    squeezed = re.sub(r"\s+", "", low)  # `image-set (` is not a function, but refusing it costs no logo
    for bad, name in CSS_FETCHING.items():
        if bad in squeezed:
            raise UnsafeSvg(f"The SVG's {where} uses {name}, which can load or run something outside the file; "
                            "only colours, gradients and references inside the SVG (url(#id)) are taken.")
    if sheet:
        for rule in re.findall(r"@([-\w]+)", low):
            if rule not in AT_RULES:
                raise UnsafeSvg(f"The SVG's {where} has an @{rule} rule, which the library does not take "
                                "(@import and its kin load outside files); remove it or export the SVG again.")
    for m in ANY_URL.finditer(css):
        target = URL.match(css, m.start())
        inner = target.group(2) if target else css[m.end():m.end() + 60]
        if not target or not INSIDE.fullmatch(inner):
            raise UnsafeSvg(f"The SVG's {where} refers to an outside file ({inner.strip()[:60]!r}); "
                            "only references inside the SVG (url(#id)) are taken.")


def sanitise(raw: bytes) -> tuple[bytes, int, int]:
    """The safe SVG's bytes and its width and height (from width/height or the viewBox; 0 when
    neither says). Raises UnsafeSvg."""
    try:
        root = fromstring(raw, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException:
        raise UnsafeSvg("The SVG declares a DTD or entities, which can read files or explode in size; save it without a DOCTYPE.") from None
    except ET.ParseError as exc:
        raise UnsafeSvg(f"The SVG is not well-formed XML ({exc}).") from None
    if _local(root.tag) != (SVG, "svg"):
        raise UnsafeSvg("The file is XML but not an SVG picture (its root is not <svg> in the SVG namespace).")
    _check_depth(root)
    _clean(root)
    _check_filters(root)
    _check_drawn(root)
    width, height = _size(root)
    ET.register_namespace("", SVG)
    ET.register_namespace("xlink", XLINK)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True), width, height


def _clean(el: ET.Element) -> None:
    for child in list(el):
        if not isinstance(child.tag, str):  # comments, processing instructions
            el.remove(child)
            continue
        ns, local = _local(child.tag)
        if ns in EDITOR_NS or (ns == SVG and local in DROPPED):
            el.remove(child)
            continue
        if local in DANGEROUS:
            raise UnsafeSvg(f"The SVG contains {DANGEROUS[local]}; the library takes only drawings. Export it again as plain SVG (shapes and text).")
        if ns != SVG or local not in ELEMENTS:
            what = f"<{local}>" + (f" from {ns}" if ns and ns != SVG else "")
            raise UnsafeSvg(f"The SVG contains {what}, which the library does not take; export it again as plain SVG (shapes and text).")
        _clean(child)
    _ns, local = _local(el.tag)
    if local == "style":
        if len(el):  # the browser reads every text inside <style> as CSS, a <tspan/>'s tail too
            raise UnsafeSvg("The SVG's <style> holds elements (<" + _local(el[0].tag)[1] + ">); a <style> "
                            "must be CSS text only. Export the SVG again.")
        _check_css(el.text or "", "<style>", sheet=True)
    for name in list(el.attrib):
        ns, attr = _local(name)
        value = el.attrib[name]
        if ns in EDITOR_NS:
            del el.attrib[name]
            continue
        if attr.lower().startswith("on"):
            raise UnsafeSvg(f"The SVG has an event handler ({attr}=…), which is a script; the library takes only drawings.")
        if ns not in ("", XLINK, XML) or attr not in ATTRIBUTES:
            raise UnsafeSvg(f"The SVG has an attribute the library does not take ({attr!r} on <{local}>); export it again as plain SVG.")
        if attr == "href" and not value.strip().startswith("#"):
            raise UnsafeSvg(f"The SVG links to an outside file or address ({value[:60]!r}); only references inside the SVG (#id) are taken.")
        _check_css(value, f"{attr!r} attribute", sheet=attr == "style")


def _numbers(value: str | None) -> list[float]:
    """The numbers of an attribute (a percentage as a fraction); inf for one that is not finite."""
    out = []
    for tok in FLOAT.findall(value or ""):
        try:
            n = float(tok.rstrip("%")) / (100 if tok.endswith("%") else 1)
        except ValueError:
            n = float("inf")
        out.append(abs(n) if n == n else float("inf"))
    return out


def _scale(transform: str | None) -> float:
    """How much a `transform` enlarges (the product of its scale() and matrix() factors)."""
    k = 1.0
    for name, args in TRANSFORM.findall(transform or ""):
        n = _numbers(args)
        if name.lower() == "scale" and n:
            k *= max(n[:2])
        elif len(n) >= 4:
            k *= max((n[0] ** 2 + n[1] ** 2) ** 0.5, (n[2] ** 2 + n[3] ** 2) ** 0.5)
    return k


def _check_filters(root: ET.Element) -> None:
    """Refuses filter parameters and regions that take a browser seconds to paint."""
    # the picture's size in its own user units: the viewBox, which the drawn size is scaled from
    box = _numbers(root.get("viewBox"))
    w, h = (box[2], box[3]) if len(box) == 4 else _size(root)
    size = float(max(w, h) or 1920)
    too_much = ("The SVG's {what} is {value!r}: more than {limit} of the picture's size, which takes browsers "
                "seconds to paint. Lower it or export the SVG again.")
    ids = {el.get("id"): el for el in root.iter() if el.get("id")}
    # the largest enlargement each filter is drawn at: the transforms of its users and their ancestors
    scale: dict[int, float] = {}
    css_texts: list[tuple[str, float]] = [(el.text or "", 1.0) for el in root.iter(f"{{{SVG}}}style")]
    stack = [(root, _scale(root.get("transform")))]
    while stack:
        el, k = stack.pop()
        for attr in ("filter", "style"):
            value = el.get(attr) or ""
            css_texts.append((value, k))
            for _, ref in URL.findall(css_text(value)):
                target = ids.get(ref.strip()[1:])
                if target is not None:
                    scale[id(target)] = max(scale.get(id(target), 1.0), k)
        stack += [(child, k * _scale(child.get("transform"))) for child in el]
    for flt in root.iter(f"{{{SVG}}}filter"):
        k = scale.get(id(flt), 1.0)
        relative = flt.get("primitiveUnits", "").strip() == "objectBoundingBox"
        user_space = flt.get("filterUnits", "").strip() == "userSpaceOnUse"
        for attr in ("x", "y", "width", "height"):
            value = flt.get(attr) or ""
            units = user_space and not value.strip().endswith("%")
            if any(n * (k / size if units else 1) > MAX_REGION for n in _numbers(value)):
                raise UnsafeSvg(too_much.format(what=f"filter region ({attr} of <filter>)", value=value[:40],
                                                limit=f"{MAX_REGION:.0%}"))
        for el in flt.iter():
            local = _local(el.tag)[1]
            for attr, kinds, limit in (("stdDeviation", {"feGaussianBlur", "feDropShadow"}, MAX_BLUR),
                                       ("radius", {"feMorphology"}, MAX_MORPH)):
                value = el.get(attr)
                if local in kinds and value is not None:
                    # objectBoundingBox: a fraction of the shape, at most the whole picture
                    per = 1.0 if relative else k / size
                    if any(n * per > limit for n in _numbers(value)):
                        raise UnsafeSvg(too_much.format(what=f"<{local}> {attr}", value=value[:40], limit=f"{limit:.0%}"))
    # CSS filter functions, in a <style>, a style or a filter attribute (lengths in user units / px)
    for text, k in css_texts:
        for name, args in CSS_FILTER.findall(css_text(text)):
            if any(n * k / size > MAX_BLUR for n in _numbers(args)):
                raise UnsafeSvg(too_much.format(what=f"CSS {name.lower()}()", value=f"{name}({args.strip()[:40]})",
                                                limit=f"{MAX_BLUR:.0%}"))


def _n(number: int) -> str:
    return f"{number:,}".replace(",", "\u202f")  # 20 000: a thin space groups digits in every catalog


def _check_depth(root: ET.Element) -> None:
    """Before anything recursive walks the tree (the checks, the serialiser)."""
    stack = [(root, 1)]
    while stack:
        el, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise UnsafeSvg(f"The SVG nests elements more than {MAX_DEPTH} deep; the library takes logos "
                            "and drawings, not that. Flatten its groups or export it again.")
        stack += [(child, depth + 1) for child in el]


def _vertices(el: ET.Element) -> int:
    return len(NUMBER.findall(el.get("d", "") + " " + el.get("points", ""))) // 2 + 1


def _all_vertices(root: ET.Element) -> int:
    return sum(_vertices(el) for el in root.iter() if el.get("d") or el.get("points"))


def _references(el: ET.Element) -> list[tuple[str, bool]]:
    """(id, is a marker) for each element this one draws by reference."""
    refs = []
    href = el.get("href") or el.get(f"{{{XLINK}}}href")
    if href and href.strip().startswith("#"):
        refs.append((href.strip()[1:], False))
    for attr in REFERRING:
        value = el.get(attr)
        if value and "url" in value.lower():
            for decl in css_text(value).split(";"):
                name = decl.split(":", 1)[0].strip().lower() if attr == "style" else attr
                refs += [(t.strip()[1:], name.startswith("marker")) for _, t in URL.findall(decl)]
    return refs


def _check_drawn(root: ET.Element) -> None:
    """Refuses a file that draws more than MAX_DRAWN elements or MAX_PATH_DRAWN characters of path
    data once every `<use>`, pattern, clip, mask, filter and marker is expanded: a `<use>`
    bomb is a few kilobytes on disk and billions of shapes on screen."""
    ids = {el.get("id"): el for el in root.iter() if el.get("id")}
    cost: dict[int, tuple[int, int]] = {}
    open_now: set[int] = set()

    def drawn(el: ET.Element, depth: int) -> tuple[int, int]:
        key = id(el)
        if key in cost:
            return cost[key]
        if key in open_now:
            raise UnsafeSvg(f"The SVG's element #{el.get('id') or _local(el.tag)[1]} uses itself (directly or "
                            "through others); a browser cannot draw that. Export it again.")
        if depth > 2 * MAX_DEPTH:
            raise UnsafeSvg(f"The SVG's references (<use> of a <use> of …) go more than {2 * MAX_DEPTH} deep; "
                            "the library takes logos and drawings, not that.")
        open_now.add(key)
        count, path = 1, len(el.get("d", "")) + len(el.get("points", ""))
        parts = [drawn(child, depth + 1) for child in el]
        for ref, marker in _references(el):
            if ref in ids and _local(ids[ref].tag)[1] not in PAINTS:
                c, p = drawn(ids[ref], depth + 1)
                times = _vertices(el) if marker else 1
                parts.append((c * times, p * times))
        for c, p in parts:
            count, path = count + c, path + p
        if count > MAX_DRAWN or path > MAX_PATH_DRAWN:
            raise UnsafeSvg(f"The SVG draws more than {_n(MAX_DRAWN)} shapes or {_n(MAX_PATH_DRAWN)} characters of path "
                            "data once its <use> copies are counted, which hangs the browsers that show it. "
                            "Simplify the drawing or export it again without nested copies.")
        open_now.discard(key)
        cost[key] = (count, path)
        return count, path

    drawn(root, 1)
    # rules in a <style> apply to elements the check cannot match: count each reference they make
    # once more, markers once per vertex of the file's paths
    sheet = " ".join(el.text or "" for el in root.iter(f"{{{SVG}}}style"))
    total = cost[id(root)]
    for decl in css_text(sheet).split(";"):
        name = decl.split(":", 1)[0].split("{")[-1].strip().lower()
        for _, t in URL.findall(decl):
            target = ids.get(t.strip()[1:])
            if target is not None and _local(target.tag)[1] not in PAINTS:
                c, p = cost[id(target)]
                times = _all_vertices(root) if name.startswith("marker") else 1
                total = (total[0] + c * times, total[1] + p * times)
    if total[0] > MAX_DRAWN or total[1] > MAX_PATH_DRAWN:
        raise UnsafeSvg(f"The SVG draws more than {_n(MAX_DRAWN)} shapes or {_n(MAX_PATH_DRAWN)} characters of path "
                        "data once its <style> markers and patterns are counted, which hangs the browsers that show it. "
                        "Simplify the drawing.")


def _size(root: ET.Element) -> tuple[int, int]:
    def number(v: str | None) -> float | None:
        m = re.fullmatch(r"\s*([0-9.]+)\s*(px)?\s*", v or "")
        return float(m.group(1)) if m else None

    w, h = number(root.get("width")), number(root.get("height"))
    if w and h:
        return round(w), round(h)
    parts = re.split(r"[\s,]+", (root.get("viewBox") or "").strip())
    try:
        if len(parts) == 4:
            return round(float(parts[2])), round(float(parts[3]))
    except ValueError:
        pass
    return 0, 0
