"""The evaluation loop, above the metrics: validate a call's options once, prepare the
frames once (``trunc_accessor.core``), run every requested kernel and shape the answer
(``evaluation``); cut-offs and optimal depths (``truncation``); runs larger than memory in
query batches (``batches``); the peers' conventions as presets (``presets``)."""
