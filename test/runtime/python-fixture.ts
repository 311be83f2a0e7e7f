/**
 * A test adapter whose tools are Python functions, written the way the original Hermit
 * wrote them (`tools.py:count_words`, keyword arguments, `async def`): sync and async
 * tools, raising ones, ones that hang, exit the process or print, resources, module state,
 * a result that is not JSON, and file and network access (for the sandbox).
 */
import { execFileSync } from "node:child_process";
import { stringify } from "yaml";
import type { FileTree } from "../helpers.js";
import { object } from "./fixture.js";

/** The declared tools, exactly as written into adapter.yaml. */
export const pythonTools = [
  {
    name: "count_words",
    description: "Count the words in a text (sync).",
    entrypoint: "tools.py:count_words",
    input_schema: object({ text: { type: "string" } }),
    output_schema: object({ count: { type: "integer", minimum: 0 } }),
  },
  {
    name: "echo_later",
    description: "Echo a text after a delay (async def).",
    entrypoint: "tools.py:echo_later",
    input_schema: object({ text: { type: "string" }, delay_ms: { type: "integer", minimum: 0 } }, ["text"]),
    output_schema: object({ text: { type: "string" } }),
  },
  { name: "fail", description: "Raise (sync).", entrypoint: "tools.py:fail", input_schema: object({ reason: { type: "string" } }) },
  { name: "reject", description: "Raise (async).", entrypoint: "tools.py:reject", input_schema: object({ reason: { type: "string" } }) },
  { name: "sleep_forever", description: "Await forever (async).", entrypoint: "tools.py:sleep_forever", input_schema: { type: "object" } },
  {
    name: "wait_cancel",
    description: "Await until cancelled, and say so on stderr (async).",
    entrypoint: "tools.py:wait_cancel",
    input_schema: object({ marker: { type: "string" } }),
  },
  { name: "block", description: "Sleep in its thread for an hour (sync).", entrypoint: "tools.py:block", input_schema: { type: "object" } },
  {
    name: "hog_loop",
    description: "Await, then block the asyncio loop itself (time.sleep in async def).",
    entrypoint: "tools.py:hog_loop",
    input_schema: { type: "object" },
  },
  { name: "exit_now", description: "End the process (os._exit(1)).", entrypoint: "tools.py:exit_now", input_schema: { type: "object" } },
  {
    name: "forge",
    description: "Write a made-up answer on the answer channel (file descriptor 4), then answer.",
    entrypoint: "tools.py:forge",
    input_schema: { type: "object" },
  },
  { name: "close_channel", description: "Close the answer channel.", entrypoint: "tools.py:close_channel", input_schema: { type: "object" } },
  { name: "noisy", description: "Print on stdout and stderr.", entrypoint: "tools.py:noisy", input_schema: { type: "object" } },
  {
    name: "whole",
    description: "Take the arguments as one dict (the original Hermit's other style).",
    entrypoint: "tools.py:whole",
    input_schema: object({ text: { type: "string" } }),
  },
  {
    name: "show_resources",
    description: "Return the resources it receives.",
    entrypoint: "tools.py:show_resources",
    input_schema: object({ label: { type: "string" } }),
  },
  { name: "count_calls", description: "Module state.", entrypoint: "tools.py:count_calls", input_schema: { type: "object" } },
  {
    name: "bad_output",
    description: "Break the output schema.",
    entrypoint: "tools.py:bad_output",
    input_schema: { type: "object" },
    output_schema: object({ count: { type: "integer" } }),
  },
  { name: "not_json", description: "Return a set.", entrypoint: "tools.py:not_json", input_schema: { type: "object" } },
  {
    name: "write_file",
    description: "Write text to an absolute path.",
    entrypoint: "tools.py:write_file",
    input_schema: object({ path: { type: "string" }, text: { type: "string" } }),
  },
  {
    name: "connect",
    description: "Open a TCP connection to 127.0.0.1:port and read one line.",
    entrypoint: "tools.py:connect",
    input_schema: object({ port: { type: "integer" } }),
  },
  {
    name: "shout",
    description: "A TypeScript tool next to the Python ones.",
    entrypoint: "shout.ts:shout",
    input_schema: object({ text: { type: "string" } }),
  },
];

export const TOOLS_PY = `"""Tools of the Python runtime fixture."""
import asyncio
import os
import socket
import sys
import time

from helpers import words

_calls = 0


def count_words(text):
    print("counting", len(text), "characters")
    return {"count": len(words(text))}


async def echo_later(text, delay_ms=0):
    await asyncio.sleep(delay_ms / 1000)
    return {"text": text}


def fail(reason):
    raise ValueError("boom: " + reason)


async def reject(reason):
    await asyncio.sleep(0)
    raise RuntimeError("rejected: " + reason)


async def sleep_forever():
    await asyncio.sleep(3600)


async def wait_cancel(marker):
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        print("cancelled " + marker, file=sys.stderr)
        raise


def block():
    time.sleep(3600)


async def hog_loop():
    await asyncio.sleep(0.01)
    time.sleep(3600)


def exit_now():
    os._exit(1)


def forge():
    os.write(4, b'{"t":"result","id":1,"key":"guessed","value":{"count":999}}\\n')
    return {"forged": True}


def close_channel():
    os.close(4)
    return {"closed": True}


def noisy():
    print("noise from print")
    sys.stdout.write("noise on sys.stdout\\n")
    sys.stdout.flush()
    os.write(1, b"noise on fd 1\\n")
    print("noise on stderr", file=sys.stderr)
    return {"quiet": False}


def whole(args):
    return {"got": args}


def show_resources(label, _resources):
    return {"label": label, "resources": _resources}


def count_calls():
    global _calls
    _calls += 1
    return {"calls": _calls}


def bad_output():
    return {"count": "many"}


def not_json():
    return {1, 2}


def write_file(path, text):
    with open(path, "w") as handle:
        handle.write(text)
    return {"written": path}


def connect(port):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        return {"received": conn.makefile().readline().strip()}
`;

/** The line of `tools.py` that holds `text` (1-based), for messages that name file:line. */
export function lineOf(text: string, source = TOOLS_PY): number {
  return source.split("\n").findIndex((line) => line.includes(text)) + 1;
}

/** The adapter's files. */
export function pythonTree(): FileTree {
  return {
    "adapter.yaml": stringify({
      contract: "1.0.0",
      name: "python-fixture",
      version: "2.0.0",
      description: "Python tools that exercise hermit's runtime.",
      exports: { context: "ADAPTER.md", tools: pythonTools },
    }),
    "ADAPTER.md": "# Python fixture\n\nUse the tools.\n",
    "tools.py": TOOLS_PY,
    "helpers.py": 'def words(text):\n    return [word for word in text.split() if word]\n',
    "shout.ts": "export function shout({ text }: { text: string }) {\n  return `${text}!`;\n}\n",
  };
}

/** Why Python tests cannot run here, or undefined when a python3 3.8+ is on PATH. */
export const noPython: string | undefined = (() => {
  try {
    const version = execFileSync("python3", ["-c", "import sys; print(sys.version_info >= (3, 8))"], { encoding: "utf8" });
    return version.trim() === "True" ? undefined : "python3 on PATH is older than 3.8";
  } catch {
    return "no python3 on PATH";
  }
})();
