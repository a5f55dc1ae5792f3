"""The command line's ``--import MODULE``: metrics of the user's own, defined in a module
named or a Python file given, become names ``-m`` accepts."""
from __future__ import annotations

import os
import re
import sys

from trunc_accessor.frontends.cli.options import CommandLineError


def import_module(name: str) -> None:
    """``--import``: a module by name, looked up in the working directory first (as ``python
    -m`` does; an installed console script's path starts at its own folder instead), or a
    Python file by path (``./mymetrics.py``). Any failure is a CommandLineError saying which."""
    import importlib.util

    cwd = os.getcwd()
    if name.endswith(".py") or os.sep in name or "/" in name:
        path = os.path.abspath(name)
        if not os.path.isfile(path):
            raise CommandLineError(f"--import {name}: no such file ({path})")
        module_name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise CommandLineError(f"--import {name}: not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as e:
            sys.modules.pop(module_name, None)
            _import_failed(name, e)
        return
    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", name):
        raise CommandLineError(f"--import {name}: not a module name (mymetrics, pkg.module) "
                               "nor a Python file (./mymetrics.py)")
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name is not None and (name == e.name or name.startswith(e.name + ".")):
            raise CommandLineError(
                f"--import {name}: no module {e.name!r} in the working directory ({cwd}) nor "
                f"on Python's path; give a file instead (--import ./{name.replace('.', '/')}"
                ".py)") from None
        _import_failed(name, e)
    except BaseException as e:
        _import_failed(name, e)
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)


def _import_failed(name: str, e: BaseException):
    if isinstance(e, KeyboardInterrupt):
        raise e
    where = ""
    tb = e.__traceback__
    while tb is not None:  # the innermost frame: the user's line at fault
        where = f" ({tb.tb_frame.f_code.co_filename}, line {tb.tb_lineno})"
        tb = tb.tb_next
    text = str(e)
    if isinstance(e, SyntaxError):
        text, where = str(e.msg), f" ({e.filename}, line {e.lineno})"
    raise CommandLineError(f"--import {name} failed: {type(e).__name__}: {text}{where}") from None
