"""Cascade metrics: ERR, ERR', RBU, ERRU (filled in by the cascade work)."""
