"""Model servers that the bridge asks over HTTP, never by import.

``local_model``: SmolLM2-135M-Instruct on the CPU behind an OpenAI-compatible endpoint
(``python -m lsp_bridge.serving.local_model``; needs the ``local`` extra and the weights package),
its wire format in ``openai_wire``. ``llama_server``: a llama.cpp server built from source
(``llama_cache`` where the build is kept, ``llama_run`` running it).
The language server reaches it like any other endpoint, through the ``openai-chat`` or
``openai-completions`` model kinds, so nothing here is imported by the rest of ``lsp_bridge``.
"""
