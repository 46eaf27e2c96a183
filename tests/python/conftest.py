"""Shared paths for the Python tests. ctest sets PYTHONPATH=build/python, EDGERUN_BUILD_DIR and
EDGERUN_SHARED_DIR; run by hand, the defaults are build/ and ../shared next to the repository."""
import json
import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("EDGERUN_BUILD_DIR", REPO / "build"))
SHARED = pathlib.Path(os.environ.get("EDGERUN_SHARED_DIR", REPO.parent / "shared"))
CORPUS = SHARED / "conformance"
INVALID = SHARED / "conformance-invalid"


def case_dir(name):
    """The folder of a conformance case; skips the test (with the reason) when it is absent."""
    path = CORPUS / name
    if not (path / "model.tflite").exists():
        pytest.skip("conformance corpus not found at {} (set EDGERUN_SHARED_DIR)".format(CORPUS))
    return path


def case_json(name):
    with open(case_dir(name) / "case.json", encoding="utf-8") as f:
        return json.load(f)


def all_cases():
    if not CORPUS.is_dir():
        return []
    return sorted(p.name for p in CORPUS.iterdir() if (p / "case.json").exists())
