"""Utility metrics of Amigó, Mizzaro & Spina (SIGIR 2022) §3.3, and set-based F."""
