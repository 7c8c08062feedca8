#!/usr/bin/env python3
"""Runs the ```python blocks of a Markdown file as one script, in order, like a notebook's
cells: `python3 scripts/run-md-python.py docs/python.md` (CI runs it in the venv where the
fatnet wheel is installed). A block whose fence line is ```python no-run is shown, not run.
Exits with the script's status; a failing block is named by its line in the Markdown file."""

import pathlib
import sys


def blocks(text):
    """(first line number, code) of every ```python block."""
    out, code, start, in_block = [], [], 0, False
    for number, line in enumerate(text.splitlines(), 1):
        fence = line.strip()
        if not in_block and fence.startswith("```python") and "no-run" not in fence:
            in_block, code, start = True, [], number + 1
        elif in_block and fence == "```":
            in_block = False
            out.append((start, "\n".join(code)))
        elif in_block:
            code.append(line)
    if in_block:
        sys.exit(f"unterminated ```python block from line {start}")
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: run-md-python.py FILE.md")
    path = pathlib.Path(sys.argv[1])
    cells = blocks(path.read_text(encoding="utf-8"))
    if not cells:
        sys.exit(f"{path}: no ```python blocks")
    scope = {"__name__": "__main__"}
    for start, code in cells:
        # Compiled with the Markdown file's line numbers, so a traceback points into it.
        source = "\n" * (start - 1) + code
        exec(compile(source, str(path), "exec"), scope)
    print(f"{path}: {len(cells)} blocks ran")


if __name__ == "__main__":
    main()
