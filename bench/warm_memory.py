"""Touch most of the machine's free memory once, then free it.

On a virtual machine whose host backs guest memory lazily (this benchmark's machines are
Firecracker VMs), the first write to each page of guest memory since boot costs about
2 s per GiB (a host-side fault), ~50× a write to a page touched before. A timed call that
happens to get such pages from the kernel then measures the host, not the library: at
10M rows that added up to 0.3–1 s to one call and made repeats of the same call differ by
1.7×. ``bench/run.sh`` runs this once before timing (``WARM=0`` skips it); every entry,
peers included, then gets pages the host has already backed.

  python bench/warm_memory.py            # 90% of MemAvailable
  python bench/warm_memory.py --gib 8
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def available_gib() -> float:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 2 ** 20
    return 4.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gib", type=float, default=None,
                    help="GiB to touch (default: 90%% of MemAvailable)")
    a = ap.parse_args()
    gib = a.gib if a.gib is not None else 0.9 * available_gib()
    t0 = time.perf_counter()
    held, chunk = [], 1 << 27  # 1 GiB of int64
    for _ in range(int(gib)):
        held.append(np.ones(chunk, dtype=np.int64))  # written, so backed, then freed below
    print(f"[warm] touched {len(held)} GiB in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
