#!/usr/bin/env python3
"""Checks that the architecture article's map of the package is true.

The article (Sources/MediaPipeline/MediaPipeline.docc/Architecture.md, built by DocC with the rest of
the documentation) has two tables under "## Modules" and "## Test targets". Each row names a target
(first column, in backticks), what it depends on (second column: the targets and products in
backticks, or "none") and, for the modules, its folders (third column: each top-level folder of the
target's directory in backticks, "Graph/", or "none"; DocC catalogs are not counted). This script
compares them with `swift package dump-package` and with the directories:

    Scripts/architecture-map.py check    exits 1 naming every difference (a target missing from the
                                         article or from Package.swift, a dependency or a folder too
                                         many or too few)
    Scripts/architecture-map.py show     prints the rows the article should have (a starting point
                                         when a target or folder is added)
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARTICLE = os.path.join(ROOT, "Sources/MediaPipeline/MediaPipeline.docc/Architecture.md")


def package_targets():
    """(kind, name) -> (dependencies, folders) for every library, system and test target."""
    dump = subprocess.run(
        ["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    targets = {}
    for target in json.loads(dump.stdout)["targets"]:
        kind = target["type"]
        if kind not in ("regular", "system", "test"):
            continue
        dependencies = set()
        for dependency in target.get("dependencies", []):
            (_, value), = dependency.items()
            dependencies.add(value[0])
        base = "Tests" if kind == "test" else "Sources"
        path = os.path.join(ROOT, target.get("path") or os.path.join(base, target["name"]))
        folders = {
            entry + "/"
            for entry in os.listdir(path)
            if os.path.isdir(os.path.join(path, entry)) and not entry.endswith(".docc")
        }
        table = "test" if kind == "test" else "module"
        targets[(table, target["name"])] = (dependencies, folders)
    return targets


def article_rows():
    """(table, name) -> (dependencies, folders or None) from the article's two tables."""
    rows = {}
    table = None
    with open(ARTICLE, encoding="utf-8") as article:
        for line in article:
            if line.startswith("## "):
                heading = line[3:].strip()
                table = {"Modules": "module", "Test targets": "test"}.get(heading)
                continue
            if table is None or not line.startswith("| `"):
                continue
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            name = re.findall(r"`([^`]+)`", cells[0])[0]
            dependencies = set(re.findall(r"`([^`]+)`", cells[1]))
            folders = set(re.findall(r"`([^`]+/)`", cells[2])) if table == "module" else None
            rows[(table, name)] = (dependencies, folders)
    return rows


def check():
    targets = package_targets()
    rows = article_rows()
    problems = []
    for key in sorted(set(targets) | set(rows)):
        table, name = key
        if key not in rows:
            problems.append(f"{name}: a {table} target in Package.swift, missing from the article's map")
            continue
        if key not in targets:
            problems.append(f"{name}: in the article's map, not a {table} target of Package.swift")
            continue
        (real_dependencies, real_folders), (said_dependencies, said_folders) = targets[key], rows[key]
        for missing in sorted(real_dependencies - said_dependencies):
            problems.append(f"{name}: depends on {missing}, which the article does not say")
        for extra in sorted(said_dependencies - real_dependencies):
            problems.append(f"{name}: the article says it depends on {extra}; Package.swift does not")
        if said_folders is not None:
            for missing in sorted(real_folders - said_folders):
                problems.append(f"{name}: has the folder {missing}, which the article does not list")
            for extra in sorted(said_folders - real_folders):
                problems.append(f"{name}: the article lists the folder {extra}, which does not exist")
    for problem in problems:
        print(f"architecture-map: {problem}", file=sys.stderr)
    if problems:
        print(f"architecture-map: {os.path.relpath(ARTICLE, ROOT)} disagrees with Package.swift "
              "or the folders (Scripts/architecture-map.py show prints the true rows)", file=sys.stderr)
        return 1
    return 0


def show():
    for (table, name), (dependencies, folders) in sorted(package_targets().items()):
        listed = ", ".join(f"`{d}`" for d in sorted(dependencies)) or "none"
        if table == "module":
            shown = ", ".join(f"`{f}`" for f in sorted(folders)) or "none"
            print(f"| `{name}` | {listed} | {shown} | |")
        else:
            print(f"| `{name}` | {listed} | |")
    return 0


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "check":
        sys.exit(check())
    if command == "show":
        sys.exit(show())
    print(__doc__, file=sys.stderr)
    sys.exit(2)
