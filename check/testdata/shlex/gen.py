"""Writes the reference tables the shell-word splitter and the INI reader
are tested against: shlex.json from Python's shlex.split (what pytest uses
for addopts and PYTEST_ADDOPTS) and ini.json from iniconfig (what pytest
uses to read pytest.ini, tox.ini and setup.cfg).

Run from the repository root, with a Python 3 that has iniconfig:

    python3 check/testdata/shlex/gen.py

The inputs are the hand-written cases below and strings drawn with a fixed
seed from an alphabet of the characters both readers treat specially, so
the tables are the same on every run.
"""

import json
import os
import random
import shlex
import sys

import iniconfig

HERE = os.path.dirname(os.path.abspath(__file__))

SHLEX_CASES = [
    "",
    " ",
    "-x  -q",
    "--junitxml=reports/unit.xml -ra",
    '--junitxml="out dir/r.xml" -k \'a or b\'',
    r'a\ b "c\"d" ' + r"'e\f'",
    '"open',
    "'open",
    "trailing\\",
    '"in quotes\\',
    "a''b",
    '""',
    "''",
    '"" x',
    'a"b c"d',
    r'"a\b"',
    r'"a\\b"',
    r'"a\$b"',
    "\\\n",
    "a\\\nb",
    "\t-q\r\n--junit-xml out.xml\n",
    "-p no:cacheprovider --tb=short",
    "--junitxml='$HOME/r.xml'",
    "x#y #z",
    "caf\u00e9 \u00fcber",
    "a\u00a0b",
    "a\x0bb\x0cc",
    "--junitxml=reports/ini.xml\n    -p no:warnings",
]

SHLEX_ALPHABET = ['a', 'b', '-', '=', ' ', '\t', '\n', '\r', '"', "'", '\\', '#', '$', '\u00e9', '\x0b']

INI_CASES = [
    "",
    "[pytest]\n",
    "[pytest]\naddopts = -ra\n",
    "# comment\n[tool:pytest]\naddopts = -ra\n    --junitxml=reports/unit.xml\n  -p no:cacheprovider\njunit_family: xunit1\n; another\n[other]\naddopts = --junitxml=wrong.xml\n",
    "[pytest]\naddopts =\n    -q\n    --junitxml=r.xml\n",
    "[pytest]\nkey: value = 1\n",
    "[pytest]\nkey = value: 1\n",
    "[pytest]\nurl = http://x\n",
    "[pytest] # header comment\na = 1\n",
    "[pytest]\na = 1 # not a comment\n",
    "[ pytest ]\na = 1\n",
    "[]\n",
    "a = 1\n",
    "  indented first\n",
    "[pytest]\n  continuation after header\n",
    "[pytest]\nnot a value line\n",
    "[pytest]\na = 1\na = 2\n",
    "[pytest]\n[pytest]\n",
    "[pytest]\nA = 1\na = 2\n",
    "[pytest]\r\naddopts = -q\r\n  -x\r\n",
    "[pytest]\raddopts = -q\r",
    "[pytest]\na =\n\n  b\n",
    "[pytest]\na = x\n[bracket\n",
    "[pytest]\na = x\n[b#]\n",
    "\ufeff[pytest]\na = 1\n",
    "[pytest]\na = 1\x0b  b\n",
    "[pytest]\na\u00a0= 1\n",
    "[pytest]\n\u00a0b = 1\n",
    "[pytest]\na = 1\n\x1c b\n",
    "[pytest];c\n",
    "#[pytest]\n",
    "[pytest]\n=empty key\n",
    "[pytest]\n:x\n",
]

INI_ALPHABET = ['[', ']', 'p', 'a', '=', ':', ' ', '\t', '\n', '\r', '#', ';', 'x', '\u00a0', '\x0c']

INI_LINES = ["[pytest]", "[tool:pytest]", "[x]", "[ y ]", "[z] # c", "addopts = -q", "a = 1", "b: 2",
             "c = d: e", "f: g = h", "  more", "\tmore", "# c", "; c", "", "   ", "stray", "[open",
             "a = 1 ; c", "k =", "=v"]


def shlex_row(s):
    try:
        return {"in": s, "words": shlex.split(s)}
    except ValueError as e:
        return {"in": s, "error": str(e)}


def ini_row(s):
    try:
        cfg = iniconfig.IniConfig("t.ini", data=s)
    except iniconfig.ParseError as e:
        return {"in": s, "error": str(e)}
    sections = []
    for name, entries in cfg.sections.items():
        sections.append({"name": name, "entries": [[k, v] for k, v in entries.items()]})
    return {"in": s, "sections": sections}


def drawn(rng, alphabet, n, maxlen):
    out = []
    for _ in range(n):
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, maxlen))))
    return out


def write(name, rows):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        json.dump({"generated_by": "python3 check/testdata/shlex/gen.py",
                   "python": sys.version.split()[0],
                   "cases": rows}, f, ensure_ascii=True, indent=1)
        f.write("\n")


def main():
    rng = random.Random(20251202)
    write("shlex.json", [shlex_row(s) for s in SHLEX_CASES + drawn(rng, SHLEX_ALPHABET, 400, 12)])
    ini_drawn = drawn(rng, INI_ALPHABET, 150, 24)
    for _ in range(300):
        lines = [rng.choice(INI_LINES) for _ in range(rng.randint(1, 6))]
        ini_drawn.append(rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["", "\n"]))
    rows = [ini_row(s) for s in INI_CASES + ini_drawn]
    write("ini.json", rows)


if __name__ == "__main__":
    main()
