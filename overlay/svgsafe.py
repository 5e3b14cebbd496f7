"""SVG uploads: a strict allow-list, rebuilt from the parse, or refused with the reason.

No well-kept Python SVG sanitiser exists (the PyPI candidates are prototypes or unmaintained),
so this parses with defusedxml (no DTDs, entities or external resolution: XML bombs and XXE
stop at the parser) and keeps only drawing elements and presentation attributes. Anything that
can run code or reach outside the file — scripts, event handlers, foreignObject, <image>,
external `href`s, `url(...)` to anything but `#id`, CSS `@import` — refuses the whole file: an
operator gets told what is wrong instead of a logo silently missing half its parts. Editor
leftovers (Inkscape/Sodipodi metadata, comments) are dropped. The output is the re-serialised
tree, never the uploaded bytes.
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


class UnsafeSvg(ValueError):
    """The SVG cannot be taken; the message says why in an operator's words."""


def _local(name: str) -> tuple[str, str]:
    if name.startswith("{"):
        ns, _, local = name[1:].partition("}")
        return ns, local
    return "", name


def _check_css(text: str, where: str) -> None:
    low = text.lower()
    for bad in ("@import", "expression(", "javascript:", "behavior:", "-moz-binding"):
        if bad in low:
            raise UnsafeSvg(f"The SVG's {where} contains {bad.rstrip('(:')!r}, which can load or run something outside the file.")
    for _, target in URL.findall(text):
        if not target.strip().startswith("#"):
            raise UnsafeSvg(f"The SVG's {where} refers to an outside file ({target[:60]!r}); only references inside the SVG (url(#id)) are taken.")


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
    _clean(root)
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
        _check_css(el.text or "", "<style>")
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
        _check_css(value, f"{attr!r} attribute")


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
