"""Observational information effectiveness, OIE (Amigó, Mizzaro & Spina, SIGIR 2022, §3.4)."""
