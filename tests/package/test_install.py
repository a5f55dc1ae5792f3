"""The install commands the README and the site's Install section give are the ones that work:
the package is not on PyPI, so a wheel built from the checkout is installed into a throwaway
venv and runs an example, and pip resolves the package from a git URL of the repository.

The venv sees this machine's packages (``--system-site-packages``) and the wheel is installed
without its dependencies, so nothing but the build backend is downloaded (pip's build
isolation fetches setuptools, as it does on any machine); ~40 s in all."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv

import pytest

from tests.conftest import ROOT

# the commands of README.md and docs/index.md, exactly as printed there
CHECKOUT = "python -m pip install -e ."
WHEEL = ("python -m pip wheel --no-deps -w dist . && "
         "python -m pip install --find-links dist trunc_accessor")
GIT_URL = 'python -m pip install "git+$REPOSITORY_URL"'
EXTRAS = ('python -m pip install -e ".[stats,plots,dask]"',
          'python -m pip install --find-links dist "trunc_accessor[stats,plots,dask]"',
          'python -m pip install "trunc_accessor[stats,plots,dask] @ git+$REPOSITORY_URL"')


def _pip():
    """pip itself (a venv made by uv has none: .ci/lowest's suite skips these tests)."""
    pip = pytest.importorskip("pip", reason="pip is not installed in this environment")
    if tuple(int(x) for x in pip.__version__.split(".")[:2]) < (22, 3):
        pytest.skip("pip >= 22.3 installs into another environment (--python)")


def _run(args, **kwargs):
    done = subprocess.run(args, capture_output=True, text=True, timeout=240, check=False,
                          **kwargs)
    assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
    return done


@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_pages_give_the_tested_install_commands(page):
    text = (ROOT / page).read_text()
    for command in (CHECKOUT, WHEEL, GIT_URL):
        assert command in text, (page, command)
    # extras: the README writes them inline, the Install section as a block
    for command in EXTRAS:
        assert command in text, (page, command)
    assert "pip install trunc_accessor`" not in text.replace(
        "(`pip install trunc_accessor` finds nothing)", "")
    assert '"trunc_accessor[' not in text.replace(
        'dist "trunc_accessor[', "").replace('"trunc_accessor[stats,plots,dask] @ git+', "")


def test_wheel_built_from_the_checkout_installs_and_runs(tmp_path):
    """README: ``pip wheel --no-deps -w dist .``, then ``pip install --find-links dist
    trunc_accessor`` in another environment: it imports from there and loads its data."""
    _pip()
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), "."],
         cwd=ROOT)
    assert [p.name for p in dist.iterdir()] == ["trunc_accessor-"
                                                f"{_version()}-py3-none-any.whl"]
    env = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env)
    python = env / "bin" / "python"
    # --ignore-installed: this machine's copy (seen through the system site) is not the wheel
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-index",
          "--no-deps", "--ignore-installed", "--find-links", str(dist), "trunc_accessor"])
    done = _run([str(python), "-c", (
        "import trunc_accessor as ta\n"
        "run, qrels = ta.load_example()\n"
        "print(ta.__file__)\n"
        "print(round(float(run.ir.ap(qrels, ties='trec_eval').mean()), 4))\n")],
        cwd=tmp_path)
    where, value = done.stdout.split()
    assert where.startswith(str(env)), where  # the wheel's copy, not the checkout's
    # trec_eval's own map for its test run (shared/data/trec_eval/out.test: map all 0.1785)
    assert value == "0.1785"


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(),
                    reason="needs git and a git checkout")
def test_git_url_of_the_repository_resolves_to_the_package(tmp_path):
    """README: ``pip install "git+$REPOSITORY_URL"``, with the checkout's own file URL: pip
    clones it and builds the package's metadata (a dry run: nothing is installed)."""
    _pip()
    report = tmp_path / "report.json"
    _run([sys.executable, "-m", "pip", "install", "-q", "--dry-run", "--no-deps",
          "--ignore-installed", "--report", str(report), f"git+{ROOT.as_uri()}"],
         cwd=tmp_path)
    (item,) = json.loads(report.read_text())["install"]
    assert item["metadata"]["name"] == "trunc_accessor"
    assert item["metadata"]["version"] == _version()


def _version() -> str:
    import trunc_accessor

    return trunc_accessor.__version__
