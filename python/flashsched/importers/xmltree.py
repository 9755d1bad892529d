"""A small XML tree that remembers the line of every element, so errors and
notes about MQSim's files can name where a key is."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from flashsched.importers.notes import ImporterError


@dataclass
class Element:
    tag: str
    line: int
    text: str = ""
    children: list[Element] = field(default_factory=list)

    @property
    def is_leaf(self) -> bool:
        return not self.children


def parse(path: Path) -> Element:
    """The document's root element; malformed XML raises ImporterError
    naming the file and line."""
    data = path.read_bytes()
    stack: list[Element] = []
    root: list[Element] = []
    parser = expat.ParserCreate()

    def start(tag: str, _attrs: dict[str, str]) -> None:
        e = Element(tag, parser.CurrentLineNumber)
        if stack:
            stack[-1].children.append(e)
        else:
            root.append(e)
        stack.append(e)

    def end(_tag: str) -> None:
        e = stack.pop()
        e.text = e.text.strip()

    def chars(text: str) -> None:
        if stack:
            stack[-1].text += text

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(data, True)
    except expat.ExpatError as e:
        raise ImporterError(
            f"{path.name}:{e.lineno}: malformed XML: {expat.errors.messages[e.code]}"
        ) from None
    return root[0]


def root_tag(path: Path) -> str | None:
    """The root element's name, or None if the file is not XML (cheap: reads
    the first 4 KiB)."""
    with path.open("rb") as f:
        head = f.read(4096)
    parser = expat.ParserCreate()
    found: list[str] = []

    def start(tag: str, _attrs: dict[str, str]) -> None:
        found.append(tag)
        raise StopIteration

    parser.StartElementHandler = start
    # The first start tag ends the parse; a non-XML file ends it with an error.
    with contextlib.suppress(StopIteration, expat.ExpatError):
        parser.Parse(head, False)
    return found[0] if found else None
