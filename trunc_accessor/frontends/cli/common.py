"""What the command lines share: their parser (one-line errors naming the closest option or
choice), their error, and one run's answer (``Block``), which the trec_eval, ndeval and
``-R`` evaluations fill and the printers read."""
from __future__ import annotations

import argparse
import difflib
import re


class CommandLineError(Exception):
    """A bad option or file: printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors that suggest the closest option or choice."""

    def error(self, message):  # one line, not argparse's usage block
        found = re.fullmatch(r"unrecognized arguments: (.*)", message)
        if found:
            options = [o for a in self._actions for o in a.option_strings]
            hints = []
            for arg in found.group(1).split():
                close = difflib.get_close_matches(arg.split("=", 1)[0], options, n=1,
                                                  cutoff=0.6) if arg.startswith("-") else []
                if close:
                    hints.append(f"{arg}: did you mean {close[0]}?")
            if hints:
                message += " (" + "; ".join(hints) + ")"
        raise CommandLineError(message)

    def _check_value(self, action, value):  # an invalid choice names the closest one
        if action.choices is not None and value not in action.choices:
            choices = [str(c) for c in action.choices]
            close = difflib.get_close_matches(str(value), choices, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise argparse.ArgumentError(action, f"invalid choice: {value!r} (choose from "
                                                 f"{', '.join(choices)}){hint}")
        super()._check_value(action, value)


class Block:
    """One run's answer: its runid, the qids printed per query (trec_eval's order), the
    values {(label, qid): value}, the relstrings, and the summary values."""

    def __init__(self, runid, qids, values, strings, summary):
        self.runid, self.qids, self.values = runid, qids, values
        self.strings, self.summary = strings, summary
