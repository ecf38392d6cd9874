"""A real editor: headless Neovim (0.7, Debian's) starts ``simpilot serve`` as its language server,
opens a file and asks for an inline completion by method name (0.7 has the LSP client but no
inline-completion UI)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from replay.config.manifest import open_repository
from replay.core.scenarios import document_text, write_tasks
from replay.marking import mark_repository

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is installed by .ci/setup")]

SCRIPT = r"""
local env = vim.env
vim.cmd("edit " .. vim.fn.fnameescape(env.SIMPILOT_FILE))
local buf = vim.api.nvim_get_current_buf()
vim.bo[buf].filetype = "python"
-- the developer's unsaved buffer: the file with the hole's code not written yet
vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.fn.readfile(env.SIMPILOT_DOCUMENT))
local id = vim.lsp.start_client({
  name = "simpilot",
  cmd = vim.fn.json_decode(env.SIMPILOT_CMD),
  root_dir = env.SIMPILOT_ROOT,
})
vim.lsp.buf_attach_client(buf, id)
vim.wait(30000, function()
  local client = vim.lsp.get_client_by_id(id)
  return client ~= nil and client.initialized
end, 50)
local params = {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = tonumber(env.SIMPILOT_LINE), character = tonumber(env.SIMPILOT_CHARACTER) },
  context = { triggerKind = 1 },
}
local responses = vim.lsp.buf_request_sync(buf, "textDocument/inlineCompletion", params, 30000)
local file = io.open(env.SIMPILOT_OUT, "w")
file:write(vim.fn.json_encode(responses or {}))
file:close()
vim.cmd("qa!")
"""


def test_neovim_gets_an_inline_completion_from_simpilot_serve(tiny_repo: Path, tmp_path: Path) -> None:
    task = mark_repository(open_repository(tiny_repo), seed=0, per_kind=1).tasks[0]
    scenario = tmp_path / "tiny.jsonl"
    write_tasks(scenario, [task])
    target = tiny_repo / task.path
    document = tmp_path / "buffer.txt"
    document.write_text(document_text(task, target.read_bytes()), encoding="utf-8")
    script = tmp_path / "ask.lua"
    script.write_text(SCRIPT)
    out = tmp_path / "responses.json"
    command = [sys.executable, "-m", "replay", "serve", "--model", "oracle", "--scenarios", str(scenario), "--log-file", str(tmp_path / "serve.log")]
    env = {
        **os.environ, "SIMPILOT_FILE": str(target), "SIMPILOT_DOCUMENT": str(document), "SIMPILOT_ROOT": str(tiny_repo), "SIMPILOT_CMD": json.dumps(command),
        "SIMPILOT_LINE": str(task.cursor.line), "SIMPILOT_CHARACTER": str(task.cursor.character), "SIMPILOT_OUT": str(out),
    }
    result = subprocess.run(["nvim", "--headless", "-u", "NONE", "-c", f"luafile {script}"], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    responses = json.loads(out.read_text())
    answers = [r["result"]["items"][0]["insertText"] for r in (responses.values() if isinstance(responses, dict) else responses) if r.get("result")]
    assert answers == [task.ground_truth], (responses, (tmp_path / "serve.log").read_text()[-2000:])
