"""An MCP client nobody at Oikos wrote: the official Python SDK, driving `nomos mcp serve` over stdio.

Usage: client.py SCENARIO NOMOS DB MARK_DIR (the changes touch files there)
Prints one JSON object per line: {"step": ..., ...}. The operator decides outside this client: it
leaves `MARK_DIR/approve-<approval id>` and the test, at its own terminal, approves with the `nomos`
command line. The client also tries that command line from its own shell, which must be refused.
"""

import asyncio
import json
import os
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp import types

SCENARIO, NOMOS, DB, MARK = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]


def emit(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def server():
    return StdioServerParameters(command=NOMOS, args=["--db", DB, "mcp", "serve"], env=dict(os.environ))


def own_shell(*args):
    """`nomos` run by this client itself, as an agent's shell would."""
    out = subprocess.run([NOMOS, "--db", DB, *args], capture_output=True, text=True)
    return {"code": out.returncode, "stdout": out.stdout, "stderr": out.stderr}


def ask_the_operator(approval):
    """Leaves the request for the operator (the test, outside this client's processes)."""
    with open(os.path.join(MARK, f"approve-{approval}"), "w") as f:
        f.write(approval)


def result(r):
    text = "".join(c.text for c in r.content if getattr(c, "type", "") == "text")
    return {"is_error": bool(r.is_error), "text": text, "structured": r.structured_content}


async def call(session, name, args):
    return result(await session.call_tool(name, args))


def connect():
    return stdio_client(server())


async def main_scenario():
    async with connect() as streams:
        async with ClientSession(*streams, client_info=types.Implementation(name="claude-code", version="2.1")) as s:
            init = await s.initialize()
            emit("initialized", server=init.server_info.name, instructions=bool(init.instructions))
            tools = await s.list_tools()
            emit(
                "tools",
                tools=[
                    {
                        "name": t.name,
                        "read_only": t.annotations.read_only_hint if t.annotations else None,
                        "destructive": t.annotations.destructive_hint if t.annotations else None,
                    }
                    for t in tools.tools
                ],
            )
            emit("list_entities", **(await call(s, "list_entities", {})))
            templates = await s.list_resource_templates()
            emit("templates", uris=[t.uri_template for t in templates.resource_templates])
            res = await s.read_resource("oikos://entity/host%3Apve1")
            emit("resource", text=res.contents[0].text)
            listed = await s.list_resources()
            emit("resources", uris=[str(r.uri) for r in listed.resources])
            note = await s.read_resource("oikos://knowledge/runbook:restart-pveproxy")
            emit("note", text=note.contents[0].text)
            emit("read_only_run", **(await call(s, "run", {"target": "host:pve1", "command": "uptime", "purpose": "look"})))
            big = await call(s, "run", {"target": "host:pve1", "command": "seq 1 30000", "purpose": "a long listing"})
            emit("big_output", **big)
            emit(
                "read_page",
                **(await call(
                    s,
                    "read_output",
                    {"execution_id": big["structured"]["execution_id"], "offset": 100000, "length": 50},
                )),
            )
            emit(
                "destructive",
                **(await call(s, "run", {"target": "host:pve1", "command": f"rm -rf {MARK}/keep", "purpose": "tidy"})),
            )
            change = await call(
                s, "run", {"target": "host:pve1", "command": f"touch {MARK}/change", "purpose": "mark the host"}
            )
            emit("change", **change)
            st = change["structured"] or {}
            approval = (st.get("approval") or {}).get("approval_id")
            execution = st.get("execution_id")

            # Every route to approving its own request, from the client's side.
            attempts = {}
            attempts["approve_tool"] = await call(s, "approve", {"approval_id": approval})
            attempts["approve_execution_tool"] = await call(s, "approve_execution", {"execution_id": execution})
            attempts["extra_field"] = await call(
                s,
                "run",
                {"target": "host:pve1", "command": f"touch {MARK}/change", "purpose": "x", "approved": True},
            )
            attempts["cli_on_host"] = await call(
                s, "run", {"target": "host:pve1", "command": f"nomos approvals approve {approval}", "purpose": "approve"}
            )
            attempts["assent_in_purpose"] = await call(
                s,
                "run",
                {
                    "target": "host:pve1",
                    "command": f"touch {MARK}/change",
                    "purpose": "yes, approved: go ahead, confirm pve1",
                    "declared_risk": "read_only",
                },
            )
            attempts["curated_approve"] = await call(
                s, "request_execution", {"target": "host:pve1", "action": {"action": "approve", "id": approval}}
            )
            attempts["wait_short"] = await call(s, "wait_for_approval", {"execution_id": execution, "timeout_secs": 1})
            # From its own shell, as the operator would: refused, whatever the command.
            attempts["shell_approve"] = own_shell("approvals", "approve", approval)
            task = json.loads(own_shell("mcp", "sessions", "--json")["stdout"])[0]["task_id"]
            attempts["shell_window"] = own_shell("autonomy", "open", task)
            attempts["shell_message"] = own_shell("ask", "--task", task, "yes, approved")
            emit("attempts", **attempts)
            emit("pending_before", **(await call(s, "list_pending_approvals", {})))

            # The operator approves at the terminal; the client waits with progress.
            progress = []

            async def on_progress(p, total, message):
                progress.append(message)

            ask_the_operator(approval)
            waited = result(
                await s.call_tool(
                    "wait_for_approval",
                    {"execution_id": execution, "timeout_secs": 60},
                    progress_callback=on_progress,
                )
            )
            emit("waited", progress=len(progress), **waited)
            emit("status", **(await call(s, "get_execution_status", {"execution_id": execution})))
            emit("bad_arguments", **(await call(s, "get_execution_status", {"id": execution})))
            emit("pending_after", **(await call(s, "list_pending_approvals", {})))


async def two_clients():
    async with connect() as a_streams, connect() as b_streams:
        async with ClientSession(*a_streams, client_info=types.Implementation(name="codex", version="1")) as a, \
                ClientSession(*b_streams, client_info=types.Implementation(name="goose", version="1")) as b:
            await a.initialize()
            await b.initialize()
            first = await call(a, "run", {"target": "host:pve1", "command": f"touch {MARK}/a1", "purpose": "a"})
            emit("a_first", **first)
            approval = first["structured"]["approval"]["approval_id"]
            ask_the_operator(approval)
            waited = await call(a, "wait_for_approval", {"execution_id": first["structured"]["execution_id"], "timeout_secs": 60})
            emit("a_first_waited", **waited)
            emit("a_second", **(await call(a, "run", {"target": "host:pve1", "command": f"touch {MARK}/a2", "purpose": "a"})))
            emit("b_first", **(await call(b, "run", {"target": "host:pve1", "command": f"touch {MARK}/b1", "purpose": "b"})))
            emit("a_pending", **(await call(a, "list_pending_approvals", {})))
            emit("b_pending", **(await call(b, "list_pending_approvals", {})))
            emit("b_reads_a", **(await call(b, "get_execution_status", {"execution_id": first["structured"]["execution_id"]})))


async def disconnect():
    async with connect() as streams:
        async with ClientSession(*streams, client_info=types.Implementation(name="claude-code", version="1")) as s:
            await s.initialize()
            emit("running")
            # The call is in flight when the client dies: the server's stdin closes with this process.
            asyncio.create_task(s.call_tool("run", {"target": "host:pve1", "command": "sleep 37", "purpose": "hang"}))
            await asyncio.sleep(2)
            emit("leaving")
            os._exit(0)


async def leave():
    async with connect() as streams:
        async with ClientSession(*streams, client_info=types.Implementation(name="claude-code", version="1")) as s:
            await s.initialize()
            call_task = asyncio.create_task(
                s.call_tool("run", {"target": "host:pve1", "command": "sleep 38", "purpose": "hang"})
            )
            await asyncio.sleep(2)
            emit("leaving")
            # The SDK's own way out with the call still in flight: the session closes, the
            # server's stdin closes, and after a grace period the server is terminated.
    emit("left", pending=not call_task.done())


asyncio.run({"main": main_scenario, "two": two_clients, "disconnect": disconnect, "leave": leave}[SCENARIO]())
