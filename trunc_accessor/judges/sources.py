"""One qrels frame whose column says who judged each pair, as the judges' qrels that the
agreement functions take."""
from __future__ import annotations

from trunc_accessor._typing import Frame
from trunc_accessor.core import sources as _sources


def by_source(qrels: Frame, column: str = "judge") -> dict[str, Frame]:
    """{source: its qrels} from one qrels frame whose ``column`` names who judged each pair
    (a human assessor, a model, a fill), in the order the sources first appear; each frame
    is of the library given, without ``column``. Pass it to ``agreement``, ``cohen_kappa``,
    ``fleiss_kappa``, ``krippendorff_alpha``, ``align`` or ``coverage``, which take the
    judges as one mapping {judge name: qrels}.

    >>> import pandas as pd
    >>> from trunc_accessor.judges import by_source, cohen_kappa
    >>> qrels = pd.DataFrame({"qid": "1", "docid": ["a", "b", "c", "a", "b", "c"],
    ...                       "rel": [1, 0, 1, 1, 0, 0], "judge": ["human"] * 3 + ["llm"] * 3})
    >>> list(by_source(qrels))
    ['human', 'llm']
    >>> round(cohen_kappa(by_source(qrels)), 4)
    0.4
    """
    return _sources.split(qrels, column, union=False)
