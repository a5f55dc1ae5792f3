"""The errors a user can cause, all ``ValueError`` subclasses that name what is at fault.

Every error raised because of the caller's input is one of these (a test walks the
package's ``raise`` statements): ``InputError`` for frames, files and arguments,
``InputTypeError`` (also a ``TypeError``) for an argument of the wrong type,
``ParameterError`` for a metric parameter or option outside its domain.
"""
from __future__ import annotations


class InputError(ValueError):
    """Bad input: names the frame, column, argument, query or document at fault."""


class InputTypeError(InputError, TypeError):
    """An argument of the wrong type (a ``TypeError`` and an ``InputError``)."""


class ParameterError(InputError):
    """A parameter outside its domain; the message names the parameter and the range."""
