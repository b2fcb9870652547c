"""End to end: `toolspec eval` on the tickets example, against a scripted provider on each
wire and the release tickets-server over stdio.

The provider (scripted_provider.py) plays recorded model behaviour: a wrong enum then the
fix, parallel calls, a write in a read-only task, a misroute, a 429 with `retry-after`, a
529, arguments as an object and calls without ids (Chat, as local servers send them), turns
without usage. It refuses every request the real API would refuse. The report's figures
must equal what the script did, the key must appear nowhere on disk, and the transcripts
must score again offline to the same bytes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from scripted_provider import ScriptedProvider

ROOT = Path(__file__).resolve().parents[2]
SERVER = os.environ.get("TICKETS_SERVER", "")
TOOLSPEC = os.environ.get("TOOLSPEC_BIN", "")

pytestmark = pytest.mark.skipif(
    not SERVER or not TOOLSPEC, reason="set TICKETS_SERVER and TOOLSPEC_BIN to the release binaries"
)

KEYS = {
    "anthropic": "ANTHROPIC_API_KEY",
    "responses": "OPENAI_API_KEY",
    "chat": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
}
PROVIDER = {
    "anthropic": "anthropic",
    "responses": "openai-responses",
    "chat": "openai-chat",
    "gemini": "gemini",
}


def usage(i: int, o: int) -> dict[str, int]:
    return {"input": i, "output": o}


def script(wire: str) -> dict[str, Any]:
    """The model's behaviour on the five tasks of specs/eval/tickets.yaml."""
    local = wire == "chat"  # as Ollama answers: objects for arguments, no ids, no usage
    return {
        "How many open tickets mention a login loop?": [[
            [{"status": 429, "retry_after": "0", "message": "slow down"},
             {"calls": [{"name": "tickets_search", "arguments": {"query": "login loop", "status": "opened"}}],
              "usage": usage(1000, 30)}],
            [{"after": "invalid_enum",
              "calls": [{"name": "tickets_search", "arguments": {"query": "login loop", "status": "open"}}],
              "usage": usage(1200, 25), "object_arguments": local, "no_ids": local}],
            [{"text": "There are open tickets about a login loop.", "usage": None if local else usage(1300, 12)}],
        ]],
        "What is the status of ticket T-1001?": [[
            # Parallel calls, one a write in a read-only task.
            [{"calls": [{"name": "tickets_get", "arguments": {"ticket_id": "T-1001"}},
                        {"name": "tickets_update_status",
                         "arguments": {"ticket_id": "T-1002", "status": "pending", "idempotency_key": "k-e2e-1"}}],
              "usage": usage(900, 40)}],
            [{"text": "T-1001 is open.", "usage": usage(1100, 8)}],
        ]],
        'Open a ticket for ana@example.com, titled "SSO login loop".': [[
            [{"status": 529, "message": "Overloaded"},
             {"calls": [{"name": "tickets_create", "arguments": {
                 "title": "SSO login loop", "customer_email": "ana@example.com", "idempotency_key": "k-e2e-2"}}],
              "usage": usage(950, 35)}],
            [{"text": "Opened.", "usage": usage(1150, 5)}],
        ]],
        'Open a ticket for bo@example.com, titled "Printer jam".': [[
            [{"calls": [{"name": "tickets_create", "arguments": {
                "title": "Printer jam", "customer_email": "bo@example.com", "idempotency_key": "k-e2e-3"}}],
              "usage": usage(950, 35)}],
            [{"after": "approval_declined", "text": "The ticket was not opened: it was declined.", "usage": usage(1150, 9)}],
        ]],
        "Ticket T-1001 is solved; close it.": [[
            # A misroute: the read first, then the change.
            [{"calls": [{"name": "tickets_get", "arguments": {"ticket_id": "T-1001"}}], "usage": usage(900, 20)}],
            [{"calls": [{"name": "tickets_update_status",
                         "arguments": {"ticket_id": "T-1001", "status": "closed", "idempotency_key": "k-e2e-4"}}],
              "usage": usage(1000, 20)}],
            [{"text": "Closed T-1001.", "usage": usage(1100, 6)}],
        ]],
    }


def expected(s: dict[str, Any]) -> dict[str, Any]:
    """What the report must say, from the script alone."""
    calls = turns = retries = 0
    tokens_in: int | None = 0
    tokens_out: int | None = 0
    for runs in s.values():
        for run in runs:
            for attempts in run:
                retries += len(attempts) - 1
                final = attempts[-1]
                turns += 1
                calls += len(final.get("calls", []))
                u = final.get("usage")
                if u is None:
                    tokens_in = tokens_out = None
                elif tokens_in is not None and tokens_out is not None:
                    tokens_in += u["input"]
                    tokens_out += u["output"]
    return {"tool_calls": calls, "turns": turns, "provider_retries": retries,
            "input_tokens": tokens_in, "output_tokens": tokens_out}


def toolspec_eval(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TOOLSPEC, "eval", *args], cwd=ROOT, env={**os.environ, **env},
                          capture_output=True, text=True, timeout=600)


# The tickets spec names orders_get (its `not_for`): both specs are loaded, tickets evaluated.
SPECS = ["specs/tickets.yaml", "specs/orders.yaml", "--service", "tickets"]


def server_command() -> str:
    return f"{SERVER} --db {{dir}}/tickets.db --demo"


@pytest.mark.parametrize("wire", ["anthropic", "responses", "chat", "gemini"])
def test_the_tickets_tasks_on_each_wire(wire: str, tmp_path: Path) -> None:
    key = f"sk-test-{uuid.uuid4().hex}"
    s = script(wire)
    out = tmp_path / "run"
    with ScriptedProvider(s, key) as provider:
        done = toolspec_eval(
            [*SPECS, "--tasks", "specs/eval/tickets.yaml", "--no-derived",
             "--server", server_command(), "--provider", PROVIDER[wire], "--model", "scripted-1",
             "--base-url", provider.base(wire), "--out", str(out)],
            {KEYS[wire]: key},
        )
        assert provider.violations == [], provider.violations
    assert done.returncode == 1, done.stderr  # one task fails: the write in a read-only task
    report = json.loads((out / "report.json").read_text())
    want = expected(s)
    summary = report["summary"]
    for figure, value in want.items():
        assert summary[figure] == value, (figure, summary[figure], value)
    assert (summary["tasks"], summary["runs"], summary["passed"]) == (5, 5, 4), summary
    assert summary["invalid_calls"] == 1
    assert summary["errors"] == {"approval_declined": 1, "invalid_enum": 1}, summary["errors"]
    assert summary["recoveries"] == 1
    assert summary["misroutes"] == 1
    assert summary["outside_tiers"] == 1
    assert summary["stopped_runs"] == 0
    assert report["provider"] == PROVIDER[wire] and report["model"] == "scripted-1"
    assert report["date"].startswith("20") and report["wire"]
    by_id = {t["id"]: t for t in report["tasks"]}
    failed = by_id["read-one-ticket"]["runs"][0]
    assert not failed["passed"] and "tickets_update_status, a reversible tool" in failed["why"][0]
    assert by_id["close-a-solved-ticket"]["runs"][0]["misroute"] is True
    assert by_id["open-sso-ticket"]["runs"][0]["passed"], by_id["open-sso-ticket"]
    assert by_id["declined-ticket-is-not-opened"]["runs"][0]["passed"]
    # The table says the same on the terminal.
    assert "5 tasks, 5 runs: 4 passed" in done.stdout, done.stdout
    # The key is in no file the run wrote.
    for path in out.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(errors="replace"), path
    # The approval the person gave is in the transcript.
    sso = (out / "transcripts" / "open-sso-ticket.1.jsonl").read_text()
    assert '"event":"approval"' in sso and '"answer":"accept"' in sso
    # Scored again offline: the same report, byte for byte.
    again = toolspec_eval(["--rescore", str(out), "--out", str(tmp_path / "again")], {})
    assert again.returncode == 1, again.stderr
    assert "the same report" in again.stderr, again.stderr
    assert (tmp_path / "again" / "report.json").read_bytes() == (out / "report.json").read_bytes()


def test_repeats_give_pass_hat_k_and_a_baseline_compares(tmp_path: Path) -> None:
    key = "sk-test-repeat"
    prompt = "What is the status of ticket T-1001?"
    good = [[{"calls": [{"name": "tickets_get", "arguments": {"ticket_id": "T-1001"}}], "usage": usage(10, 1)}],
            [{"text": "Open.", "usage": usage(10, 1)}]]
    bad = [[{"text": "I do not know.", "usage": usage(10, 1)}]]
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(
        "eval: 1\ntasks:\n  - id: read-one\n    prompt: " + prompt + "\n    tiers: [read_only]\n"
        "    expect:\n      calls: [{ tool: tickets_get, arguments: { ticket_id: T-1001 } }]\n")

    def run(runs: list[Any], out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
        with ScriptedProvider({prompt: runs}, key) as provider:
            done = toolspec_eval(
                [*SPECS, "--tasks", str(tasks), "--no-derived", "--server", server_command(),
                 "--provider", "anthropic", "--model", "scripted-1", "--base-url", provider.base("anthropic"),
                 "--repeat", str(len(runs)), "--out", str(out), *extra],
                {"ANTHROPIC_API_KEY": key})
            assert provider.violations == [], provider.violations
        return done

    first = run([good, good, good, bad], tmp_path / "a")
    report = json.loads((tmp_path / "a" / "report.json").read_text())
    assert report["summary"]["pass_hat"] == [0.75, 0.5, 0.25, 0.0], report["summary"]
    assert report["tasks"][0]["passed"] == 3
    assert "pass^4 0.00" in first.stdout
    # 3/4 then 0/4 could be chance; 0/4 then 4/4 is not.
    second = run([bad, bad, bad, bad], tmp_path / "b", "--baseline", str(tmp_path / "a" / "report.json"))
    assert "read-one  3/4 -> 0/4 passed: within the spread of the repeats" in second.stdout, second.stdout
    third = run([good, good, good, good], tmp_path / "c", "--baseline", str(tmp_path / "b" / "report.json"))
    assert third.returncode == 0, third.stderr
    assert "read-one  0/4 -> 4/4 passed: better" in third.stdout, third.stdout


def test_a_broken_provider_and_a_dying_server_fail_their_runs_and_the_rest_is_reported(tmp_path: Path) -> None:
    key = "sk-test-broken"
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(
        "eval: 1\ntasks:\n"
        "  - id: garbage\n    prompt: garbage please\n"
        "  - id: five-hundreds\n    prompt: five hundreds please\n"
        "  - id: fine\n    prompt: What is the status of ticket T-1001?\n")
    s = {
        "garbage please": [[[{"status": 200, "raw": "<html>upstream gateway</html>"}]]],
        "five hundreds please": [[[{"status": 500, "retry_after": "0"}] * 5]],
        "What is the status of ticket T-1001?": [[
            [{"calls": [{"name": "tickets_get", "arguments": {"ticket_id": "T-1001"}}], "usage": usage(10, 1)}],
            [{"text": "Open.", "usage": usage(10, 1)}]]],
    }
    with ScriptedProvider(s, key) as provider:
        done = toolspec_eval(
            [*SPECS, "--tasks", str(tasks), "--no-derived", "--server", server_command(),
             "--provider", "anthropic", "--model", "scripted-1", "--base-url", provider.base("anthropic"),
             "--out", str(tmp_path / "out")],
            {"ANTHROPIC_API_KEY": key})
    assert done.returncode == 1, done.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    runs = {t["id"]: t["runs"][0] for t in report["tasks"]}
    assert "not a JSON object" in runs["garbage"]["failure"], runs["garbage"]
    assert "answered 500" in runs["five-hundreds"]["failure"] and "after 5 attempts" in runs["five-hundreds"]["failure"]
    assert runs["fine"]["passed"], runs["fine"]
    assert report["summary"]["stopped_runs"] == 2

    # A server that dies at the first call: that run fails with the reason; nothing hangs.
    dying = f"{sys.executable} {ROOT / 'tests/e2e/dying_server.py'} {ROOT / 'generated/tickets/tools.mcp.json'}"
    s = {"What is the status of ticket T-1001?": [[
        [{"calls": [{"name": "tickets_get", "arguments": {"ticket_id": "T-1001"}}], "usage": usage(10, 1)}],
        [{"after": "no_answer", "text": "The tool failed.", "usage": usage(10, 1)}]]]}
    with ScriptedProvider(s, key) as provider:
        done = toolspec_eval(
            [*SPECS, "--tasks", str(tasks), "--no-derived", "--server", dying,
             "--provider", "anthropic", "--model", "scripted-1", "--base-url", provider.base("anthropic"),
             "--out", str(tmp_path / "dying")],
            {"ANTHROPIC_API_KEY": key})
    report = json.loads((tmp_path / "dying" / "report.json").read_text())
    fine = next(t for t in report["tasks"] if t["id"] == "fine")["runs"][0]
    assert fine["failure"] == "the server stopped during the run", fine
    assert fine["errors"] == {"no_answer": 1}
    assert report["summary"]["runs"] == 3


def test_bad_input_is_refused_before_anything_is_sent(tmp_path: Path) -> None:
    # No key: refused, naming the variable.
    env = {k: "" for k in KEYS.values()}
    done = toolspec_eval([*SPECS, "--server", server_command(), "--model", "m"], env)
    assert done.returncode == 2 and "ANTHROPIC_API_KEY is not set" in done.stderr, done.stderr
    # A server that is not the specs' server: refused before the model is asked.
    (tmp_path / "out").mkdir()
    done = toolspec_eval([*SPECS, "--server", "/bin/false", "--model", "m",
                          "--out", str(tmp_path / "o")], {"ANTHROPIC_API_KEY": "sk-x"})
    assert done.returncode == 2 and "/bin/false" in done.stderr, done.stderr
    # An output directory that holds something is never overwritten.
    (tmp_path / "out" / "report.json").write_text("{}")
    done = toolspec_eval([*SPECS, "--server", server_command(), "--model", "m",
                          "--out", str(tmp_path / "out")], {"ANTHROPIC_API_KEY": "sk-x"})
    assert done.returncode == 2 and "is not empty" in done.stderr, done.stderr


def test_a_server_over_streamable_http_with_an_approval(tmp_path: Path) -> None:
    from mcp_client import http_server

    key = "sk-test-http"
    prompt = 'Open a ticket for ana@example.com, titled "SSO login loop".'
    s = {prompt: script("anthropic")[prompt]}
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(
        "eval: 1\ntasks:\n  - id: sso\n    prompt: '" + prompt + "'\n    approve: true\n"
        "    expect:\n      state:\n        - call: { tool: tickets_search, arguments: { query: SSO } }\n"
        "          at: /total\n          equals: 1\n")
    with http_server(SERVER, ["--db", str(tmp_path / "t.db"), "--demo"]) as url:
        with ScriptedProvider(s, key) as provider:
            done = toolspec_eval(
                [*SPECS, "--tasks", str(tasks), "--no-derived", "--server", url,
                 "--provider", "anthropic", "--model", "scripted-1", "--base-url", provider.base("anthropic"),
                 "--out", str(tmp_path / "out")],
                {"ANTHROPIC_API_KEY": key})
            assert provider.violations == [], provider.violations
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    run = report["tasks"][0]["runs"][0]
    assert run["passed"] and run["approvals"] == 1, run
