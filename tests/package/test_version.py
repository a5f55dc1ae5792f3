"""The version is written in one place, ``trunc_accessor.__version__``: pyproject.toml
declares it dynamic and setuptools reads it from the source, so the built metadata, the
installed distribution and both commands' ``--version`` say the same."""
from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, version

import pytest

import trunc_accessor as ta
from tests.conftest import ROOT


def test_pyproject_reads_the_version_from_the_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"], "the version belongs in trunc_accessor"
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "trunc_accessor.__version__"}


def test_setuptools_reads_the_same_version_without_importing_the_package():
    """What the build backend computes from pyproject.toml (setuptools' own reader, in a
    fresh interpreter) is ``trunc_accessor.__version__``, read statically: building the
    package does not import it (nor its dependencies)."""
    code = ("import json, sys, warnings\n"
            "warnings.simplefilter('ignore')\n"
            "from setuptools.config.pyprojecttoml import read_configuration\n"
            "c = read_configuration('pyproject.toml')\n"
            "print(json.dumps([c['project']['version'], 'trunc_accessor' in sys.modules]))\n")
    # looked up, not imported: setuptools' distutils hack asserts when this process already
    # imported the standard library's distutils (pip does, in tests/package/test_install.py)
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [ta.__version__, False]


def test_installed_metadata_agrees():
    try:
        installed = version("trunc_accessor")
    except PackageNotFoundError:
        pytest.skip("trunc_accessor is not installed (run from a bare checkout)")
    assert installed == ta.__version__


@pytest.mark.parametrize("prog", ["trunc-accessor", "trunc-accessor-ndeval"])
def test_both_commands_print_the_version(prog, capsys):
    """The console scripts pyproject.toml declares (entry points in ``trunc_accessor.__main__``,
    the top of the package, which hands its version down to the command line)."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, function = scripts[prog].split(":")
    main = getattr(importlib.import_module(module), function)
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith(f"{prog} {ta.__version__}")
