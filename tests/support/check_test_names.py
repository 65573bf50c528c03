#!/usr/bin/env python3
"""Fails when a Catch2 test name could not run under CTest.

catch_discover_tests() turns each TEST_CASE into a CTest test named after it, and CMake
splits a name at ';' (a list separator): each part becomes a test whose filter matches no
Catch test, which runs nothing and passes. A name starting with '-' is read by Catch as
an option. Such names are listed with their file and line, and the exit status is 1.

    check_test_names.py DIR_OR_FILE...
"""
import pathlib
import re
import sys

NAME = re.compile(r'TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')
PART = re.compile(r'"((?:[^"\\]|\\.)*)"')


def names(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    for m in NAME.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, "".join(PART.findall(m.group(1)))


def main(args):
    bad = []
    for arg in args:
        root = pathlib.Path(arg)
        files = [root] if root.is_file() else sorted(root.rglob("*.cpp"))
        for f in files:
            for line, name in names(f):
                if ";" in name or name.startswith("-"):
                    bad.append(f"{f}:{line}: {name}")
    for b in bad:
        print(f"a test name CTest cannot run (';' splits it, a leading '-' is an option): {b}",
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
