"""Thin frontends: validate the call, hand columns to the engine, convert the answer back."""
