"""The evaluation loop, above the metrics: a call's options checked once where it comes in
(``options``), the frames prepared once (``trunc_accessor.core``), every requested kernel
run and the answer shaped (``evaluation``); cut-offs and optimal depths (``truncation``);
runs larger than memory in query batches (``batches``); the peers' conventions as presets
(``presets``)."""
