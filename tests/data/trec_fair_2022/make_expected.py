"""Write the synthetic inputs (always) and, where the track's code can be imported, its
outputs (see ORIGIN): PYTHONPATH=<folder holding wptrec> python make_expected.py"""
import itertools
import random

import numpy as np
import pandas as pd

rng = random.Random(2022)
GEO = ["africa", "asia", "europe"]
GENDER = ["female", "male"]
TOPICS = ["t1", "t2", "t3", "t4"]


def inputs():
    pages = [f"p{i}" for i in range(40)]
    align = []  # page, dimension, level, alignment
    for p in pages[:34]:  # p34-p39 have no alignment (unknown to AWRF)
        for dim, levels in (("geo", GEO), ("gender", GENDER)):
            w = [rng.random() ** 2 for _ in levels]
            if rng.random() < 0.3:  # a hard assignment
                w = [1.0 if i == rng.randrange(len(levels)) else 0.0 for i in range(len(levels))]
            s = sum(w) or 1.0
            align += [(p, dim, lv, x / s) for lv, x in zip(levels, w) if s]
    align = pd.DataFrame(align, columns=["page_id", "dimension", "level", "alignment"])
    qrels, run1, run2, target = [], [], [], []
    for t in TOPICS:
        rel = rng.sample(pages[:34], 6 + TOPICS.index(t) * 3)
        qrels += [(t, p) for p in rel]
        w = np.array([rng.random() + 0.1 for _ in range(len(GEO) * len(GENDER))])
        for (g, s), x in zip(itertools.product(GEO, GENDER), w / w.sum()):
            target.append((t, g, s, x))
        ranking = rng.sample(pages, 25 + TOPICS.index(t))  # Task 1: one ranking
        run1 += [(t, p, r) for r, p in enumerate(ranking, 1)]
        for seq in range(1 + TOPICS.index(t) % 3):  # Task 2: sampled rankings
            cand = rel + rng.sample(pages, 10) if t != "t4" else pages[20:40]
            cand = list(dict.fromkeys(cand))
            ranking = rng.sample(cand, min(len(cand), rng.randrange(8, 21)))
            if t == "t4":
                ranking = [p for p in ranking if p not in rel][:10]  # no relevant document
            run2 += [(t, seq, p, r) for r, p in enumerate(ranking, 1)]
    return (align, pd.DataFrame(qrels, columns=["topic_id", "page_id"]),
            pd.DataFrame(run1, columns=["topic_id", "page_id", "rank"]),
            pd.DataFrame(run2, columns=["topic_id", "seq_no", "page_id", "rank"]),
            pd.DataFrame(target, columns=["topic_id", "geo", "gender", "target"]))


def expected(align, qrels, run1, run2, target):
    import xarray as xr
    from wptrec import metrics
    from wptrec.dimension import FairDim

    def dim(name, levels):
        df = align[align["dimension"] == name].pivot(index="page_id", columns="level",
                                                    values="alignment")
        df = df.reindex(columns=levels).fillna(0.0)
        df.columns.name = name
        df.index.name = "page"
        df.name = name
        return FairDim(df, xr.DataArray(df.values, coords=[df.index, df.columns],
                                        dims=["page", name]))

    dims = {"geo": dim("geo", GEO), "gender": dim("gender", GENDER)}
    full = xr.DataArray(target.pivot_table(index="topic_id", columns=["geo", "gender"],
                                           values="target").loc[TOPICS].values
                        .reshape(len(TOPICS), len(GEO), len(GENDER)),
                        coords=[TOPICS, GEO, GENDER], dims=["topic_id", "geo", "gender"])
    q = qrels.set_index("topic_id")
    rows = []
    for label, ds, tgt in (("geo", ["geo"], full.sum("gender")),
                           ("geo+gender", ["geo", "gender"], full)):
        fd = [dims[d] for d in ds]
        for tl in (500, 30):
            m1 = metrics.AWRFMetric(q, fd, tgt, target_len=tl)
            res = run1.sort_values(["topic_id", "rank"]).groupby("topic_id")["page_id"] \
                .apply(m1).unstack()
            for t, r in res.iterrows():
                rows += [("awrf", label, tl, False, t, k, repr(float(r[k])))
                         for k in ("nDCG", "AWRF", "Score")]
        for tl, norm in ((20, False), (10, False), (20, True)):
            m2 = metrics.EELMetric(q, fd, tgt, target_len=tl, normalize=norm)
            res = run2.sort_values(["topic_id", "seq_no", "rank"]).groupby("topic_id") \
                .apply(m2)
            for t, r in res.iterrows():
                rows += [("eel", label, tl, norm, t, k, repr(float(r[k])))
                         for k in ("EE-L", "EE-D", "EE-R")]
    return pd.DataFrame(rows, columns=["metric", "dimensions", "target_len", "normalize",
                                       "topic_id", "measure", "value"])


if __name__ == "__main__":
    frames = inputs()
    for name, f in zip(("alignments", "qrels", "task1_run", "task2_run", "targets"), frames):
        f.to_csv(f"{name}.csv", index=False)
    try:
        out = expected(*frames)
    except ImportError as e:
        print(f"inputs written; the track's code is not importable ({e})")
    else:
        out.to_csv("expected.csv", index=False)
