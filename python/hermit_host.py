"""hermit's Python host: runs an adapter's Python code for hermit. Standard library only.

Two modes, one per command-line argument:

``serve``
    A long-lived tool process (one per ``hermit serve`` or ``Session``). Requests arrive as
    JSON lines on file descriptor 3, answers leave on file descriptor 4 (the protocol of
    ``src/runtime/tool-channel.ts``; keep the two in step). Sync functions run in a thread
    pool, ``async def`` functions on one asyncio loop. File descriptors 1 and 2 are pipes
    that hermit forwards to its log, so whatever a tool prints never reaches an MCP client.

``check``
    One run for ``hermit spec check``: reads one JSON request on stdin, runs the custom
    checker (``check.py:check``), the agent exporter (``agents.py:list_agents``) and imports
    every tool module, and answers on stdout with lines that start with the request's nonce
    (the protocol of ``src/check/check-child.ts``). Adapter and template code print on
    stderr. The custom check's verdict is also sent on its own line (``custom``) before any
    candidate module is imported; the protocol side keeps the first one.
"""

import asyncio
import concurrent.futures
import functools
import importlib
import importlib.util
import inspect
import json
import os
import signal
import sys
import threading
import traceback

REQUEST_FD = 3
ANSWER_FD = 4
MAX_RESULT_CHARS = 8 * 1024 * 1024
MAX_MESSAGE_CHARS = 64 * 1024
MAX_REQUEST_BYTES = 64 * 1024 * 1024
RESOURCES_PARAMETER = "_resources"
THREADS = 32


# ---------------------------------------------------------------------------- loading


class LoadError(Exception):
    """A module or function that cannot be loaded; ``file`` and ``line`` say where."""

    def __init__(self, problem, file=None, line=None):
        super().__init__(problem)
        self.problem = problem
        self.file = file
        self.line = line


def inside(root, relative):
    """The absolute path of ``relative`` inside ``root``; refuses a path that leaves it."""
    path = os.path.realpath(os.path.join(root, relative))
    real_root = os.path.realpath(root)
    if path != real_root and not path.startswith(real_root + os.sep):
        raise LoadError("%s resolves outside the adapter" % relative, relative)
    return path


def where(error, root):
    """(file relative to root, line) of the innermost frame inside ``root``, else (None, None)."""
    if isinstance(error, SyntaxError) and error.filename:
        relative = relative_to(root, error.filename)
        if relative:
            return relative, error.lineno
    found = (None, None)
    for frame in traceback.extract_tb(error.__traceback__):
        relative = relative_to(root, frame.filename)
        if relative:
            found = (relative, frame.lineno)
    return found


def relative_to(root, filename):
    try:
        real = os.path.realpath(filename)
    except (TypeError, ValueError):
        return None
    real_root = os.path.realpath(root)
    if real.startswith(real_root + os.sep):
        return os.path.relpath(real, real_root).replace(os.sep, "/")
    return None


def located(error, root):
    """``tools.py:12: `` for the innermost frame inside ``root``, else nothing."""
    file, line = where(error, root) if root else (None, None)
    return "%s:%s: " % (file, line) if file and line else ""


def describe_error(error):
    if isinstance(error, SyntaxError):
        return "%s: %s" % (type(error).__name__, error.msg)
    text = str(error)
    return "%s: %s" % (type(error).__name__, text) if text else type(error).__name__


def import_file(root, relative, modules):
    """Import ``relative`` (a .py file inside ``root``) once; its siblings import as usual."""
    path = inside(root, relative)
    if path in modules:
        return modules[path]
    if not os.path.isfile(path):
        raise LoadError("file %s not found" % relative, relative)
    if root not in sys.path:
        sys.path.insert(0, root)
    dotted = relative[: -len(".py")].replace("/", ".")
    try:
        module = None
        if all(part.isidentifier() for part in dotted.split(".")):
            existing = sys.modules.get(dotted)
            if existing is None or same_file(existing, path):
                module = importlib.import_module(dotted)
                if not same_file(module, path):
                    module = None  # a module of that name elsewhere shadows it
        if module is None:
            module = load_by_path("hermit_adapter_" + str(len(modules)), path)
    except LoadError:
        raise
    except BaseException as error:  # noqa: B902 - SystemExit or KeyboardInterrupt from an import is a load problem too
        file, line = where(error, root)
        raise LoadError("could not import %s: %s%s" % (relative, located(error, root), describe_error(error)), file or relative, line)
    modules[path] = module
    return module


def same_file(module, path):
    filename = getattr(module, "__file__", None)
    return bool(filename) and os.path.realpath(filename) == path


def load_by_path(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def resolve_function(module, relative, name):
    value = module.__dict__.get(name)
    if value is None and name not in module.__dict__:
        raise LoadError("%s has no function '%s'" % (relative, name), relative)
    if not callable(value):
        raise LoadError("%s has no function '%s' (it is a %s)" % (relative, name, type(value).__name__), relative)
    return value


# ---------------------------------------------------------------------------- calling


class FrozenDict(dict):
    """The bound resources: a dict (JSON serialises it) that refuses every change."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("the bound resources are read-only")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse


def freeze(value):
    if isinstance(value, dict):
        return FrozenDict((key, freeze(item)) for key, item in value.items())
    if isinstance(value, list):
        return tuple(freeze(item) for item in value)
    return value


class Tool:
    """A loaded tool function and how to call it."""

    def __init__(self, function):
        self.function = function
        try:
            self.signature = inspect.signature(function)
        except (TypeError, ValueError):
            self.signature = None
        parameters = self.signature.parameters if self.signature else {}
        self.wants_resources = RESOURCES_PARAMETER in parameters
        others = [p for p in parameters.values() if p.name != RESOURCES_PARAMETER]
        self.first_positional = bool(others) and others[0].kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        )

    def arguments(self, args, resources):
        """(positional, keyword) arguments: keywords when the signature takes them, else the dict."""
        extra = {RESOURCES_PARAMETER: resources} if self.wants_resources else {}
        keywords = dict(args)
        keywords.update(extra)
        if self.signature is None:
            return (), keywords
        try:
            self.signature.bind(**keywords)
            return (), keywords
        except TypeError:
            if self.first_positional:
                return (args,), extra
            return (), keywords  # calling it raises the TypeError, reported as the tool's failure


def as_json(value):
    """(json text, None) or (None, why it is not a result)."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as error:
        return None, "returned a value that is not JSON: %s" % error
    if len(text) > MAX_RESULT_CHARS:
        return None, "returned %d characters of JSON, over the limit of %d" % (len(text), MAX_RESULT_CHARS)
    return text, None


def bounded(text):
    if len(text) > MAX_MESSAGE_CHARS:
        return "%s… (%d characters)" % (text[:MAX_MESSAGE_CHARS], len(text))
    return text


# ---------------------------------------------------------------------------- serve mode


class Server:
    """The tool process: one asyncio loop reading requests, a thread pool for sync tools."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="hermit-tool")
        self.tools = {}
        self.root = None
        self.resources = FrozenDict()
        self.running = {}  # id -> asyncio task (async tools) or None (a thread)
        self.stuck = set()  # ids cancelled after a time-out whose thread still runs
        self.write_lock = threading.Lock()

    def send(self, message):
        self.send_text(json.dumps(message, ensure_ascii=False, separators=(",", ":")))

    def send_text(self, text):
        data = (text + "\n").encode("utf-8", "surrogatepass")
        with self.write_lock:
            view = memoryview(data)
            try:
                while view:
                    written = os.write(ANSWER_FD, view)
                    view = view[written:]
            except OSError as error:
                # The channel is gone (a tool closed it): end now, so the calls fail at once and a fresh process serves the next.
                sys.stderr.write("hermit: the answer channel failed (%s); ending the tool process\n" % error)
                end_process_group(1)

    async def run(self):
        reader = asyncio.StreamReader(limit=MAX_REQUEST_BYTES)
        protocol = asyncio.StreamReaderProtocol(reader)
        await self.loop.connect_read_pipe(lambda: protocol, os.fdopen(REQUEST_FD, "rb", buffering=0))
        while True:
            line = await reader.readline()
            if not line:
                break  # the protocol side is gone
            self.handle(json.loads(line))
        end_process_group()

    def handle(self, message):
        kind = message.get("t")
        if kind == "call":
            self.call(message)
        elif kind == "ping":
            self.send({"t": "pong", "id": message["id"], "key": message["key"], "stuck": len(self.stuck)})
        elif kind == "cancel":
            self.cancel(message["id"])
        elif kind == "init":
            self.init(message)

    def init(self, message):
        self.resources = freeze(message.get("resources") or {})
        root = self.root = message["root"]
        problems = []
        modules = {}
        for tool in message["tools"]:
            try:
                module = import_file(root, tool["file"], modules)
                self.tools[tool["name"]] = Tool(resolve_function(module, tool["file"], tool["function"]))
            except LoadError as error:
                problem = {"tool": tool["name"], "problem": error.problem, "file": error.file or tool["file"]}
                if error.line:
                    problem["line"] = error.line
                problems.append(problem)
        if problems:
            self.send({"t": "load-failed", "key": message["key"], "problems": problems})
        else:
            runtime = "python %s" % ".".join(str(part) for part in sys.version_info[:3])
            self.send({"t": "ready", "key": message["key"], "runtime": runtime})

    def call(self, message):
        call_id, key = message["id"], message["key"]
        tool = self.tools.get(message["tool"])
        if tool is None:
            return self.send({"t": "error", "id": call_id, "key": key, "kind": "failed", "message": "no tool '%s' is loaded" % message["tool"]})
        # Another call is running: say this one starts, in case it blocks the loop (see tool-process.ts).
        if self.running:
            self.send({"t": "begun", "id": call_id, "key": key})
        positional, keywords = tool.arguments(message["args"], self.resources)
        start = functools.partial(tool.function, *positional, **keywords)
        if inspect.iscoroutinefunction(tool.function):
            self.running[call_id] = self.loop.create_task(self.finish(call_id, key, start))
        else:
            self.running[call_id] = None
            self.loop.create_task(self.finish(call_id, key, None, self.loop.run_in_executor(self.pool, start)))

    async def finish(self, call_id, key, start, in_thread=None):
        """Await the call (a coroutine started here, or a thread's future) and answer it."""
        try:
            value = await (in_thread if in_thread is not None else start())
            if inspect.isawaitable(value):  # a sync function that returned a coroutine
                self.running[call_id] = asyncio.current_task()
                value = await value
        except asyncio.CancelledError:
            self.running.pop(call_id, None)
            return  # timed out and cancelled: the protocol side answered already
        except BaseException as error:  # noqa: B902 - SystemExit from a tool is its failure, not ours
            self.done(call_id)
            trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            sys.stderr.write("hermit: tool call %d raised:\n%s" % (call_id, trace))
            message = bounded(located(error, self.root) + describe_error(error))
            return self.send({"t": "error", "id": call_id, "key": key, "kind": "failed", "message": message, "trace": bounded(trace)})
        self.done(call_id)
        text, problem = as_json(value)
        if problem:
            return self.send({"t": "error", "id": call_id, "key": key, "kind": "result", "message": problem})
        self.send_text('{"t":"result","id":%d,"key":%s,"value":%s}' % (call_id, json.dumps(key), text))

    def done(self, call_id):
        self.running.pop(call_id, None)
        self.stuck.discard(call_id)

    def cancel(self, call_id):
        if call_id not in self.running:
            return
        task = self.running[call_id]
        if task is not None:
            task.cancel()
        else:
            self.stuck.add(call_id)  # a thread cannot be stopped; the protocol side retires this process


def end_process_group(code=0):
    """End this process (exit ``code``) and everything its tools started (as ``process-tree.ts`` does)."""
    sys.stdout.flush()
    sys.stderr.flush()
    for pid in descendants(os.getpid()) + marked(os.environ.get("HERMIT_TOOL_TREE")):
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.killpg(os.getpid(), signal.SIGKILL)  # no such group unless this process leads one
    except OSError:
        pass
    os._exit(code)


def process_ids():
    """The ids of every process (``/proc``'s numeric entries; none without /proc)."""
    try:
        return [entry for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return []


def marked(mark):
    """Every process whose environment holds ``HERMIT_TOOL_TREE=mark``: what the tools started, daemons included."""
    if not mark:
        return []
    needle = ("\0HERMIT_TOOL_TREE=%s\0" % mark).encode()
    found = []
    for entry in process_ids():
        try:
            with open("/proc/%s/environ" % entry, "rb") as environ:
                if needle in b"\0" + environ.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def descendants(root):
    """Every process whose chain of parents leads to ``root`` (empty without /proc)."""
    children = {}
    for entry in process_ids():
        try:
            with open("/proc/%s/stat" % entry) as stat:
                text = stat.read()
        except OSError:
            continue
        parent = int(text[text.rindex(")") + 2 :].split(" ")[1])
        children.setdefault(parent, []).append(int(entry))
    found, pending = [], [root]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def serve():
    for fd in (REQUEST_FD, ANSWER_FD):
        os.set_inheritable(fd, False)  # a tool's subprocesses must not hold the channel
    sys.stdout.reconfigure(line_buffering=True)
    server = Server()
    server.loop.run_until_complete(server.run())


# ---------------------------------------------------------------------------- check mode


def call_checker(function, adapter, root):
    """``check(adapter_path, {"root": root})`` when it takes two arguments, else ``check(adapter_path)``."""
    extras = ({"root": root},)
    try:
        inspect.signature(function).bind(adapter, *extras)
    except TypeError:
        extras = ()
    except ValueError:
        pass  # no signature to read (a builtin): call it as documented
    return await_if_needed(function(adapter, *extras))


def await_if_needed(value):
    if inspect.isawaitable(value):
        async def wait():
            return await value

        return asyncio.run(wait())
    return value


def normalize_issues(value, spec):
    items = value.get("issues") if isinstance(value, dict) else value
    if not isinstance(items, (list, tuple)):
        return {"error": "custom check %s returned %s, not a list of issues" % (spec, short(value))}
    issues = []
    for item in items:
        problem = item.get("problem") if isinstance(item, dict) else None
        path = item.get("path", ".") if isinstance(item, dict) else None
        if not isinstance(problem, str) or not isinstance(path, str):
            return {"error": "custom check %s returned a malformed issue: %s" % (spec, short(item))}
        issues.append({"path": path, "check": "custom", "problem": problem})
    return {"issues": issues}


def short(value):
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text[:200]


def check(request, step, say):
    """Run the custom check, then the exporter, then the tool imports; ``say`` sends a line at once."""
    response = {"tools": []}
    modules = {}
    checker = request.get("check")
    if checker:
        spec = "%s:%s" % (checker["file"], checker["function"])
        step("custom " + spec)
        try:
            module = import_file(request["root"], checker["file"], {})
            function = resolve_function(module, checker["file"], checker["function"])
            response["custom"] = normalize_issues(call_checker(function, request["adapter"], request["root"]), spec)
        except LoadError as error:
            response["custom"] = {"error": "custom check %s failed: %s" % (spec, error.problem)}
        except BaseException as error:  # noqa: B902
            response["custom"] = {"error": "custom check %s failed: %s%s" % (spec, located(error, request["root"]), describe_error(error))}
        # Sent before any candidate module is imported: Python code can read this process's
        # token (nothing is private in Python), so the verdict leaves first, and the first counts.
        say("custom", json.dumps(response["custom"], ensure_ascii=False))
    exporter = request.get("exporter")
    if exporter:
        spec = "%s:%s" % (exporter["file"], exporter["function"])
        step("exporter " + spec)
        try:
            module = import_file(request["adapter"], exporter["file"], modules)
            values = await_if_needed(resolve_function(module, exporter["file"], exporter["function"])())
            text, problem = as_json(values)
            response["agents"] = {"error": "agent exporter %s failed: %s" % (spec, problem)} if problem else {"values": json.loads(text)}
        except LoadError as error:
            response["agents"] = {"error": "agent exporter %s failed: %s" % (spec, error.problem)}
        except BaseException as error:  # noqa: B902
            response["agents"] = {"error": "agent exporter %s failed: %s%s" % (spec, located(error, request["adapter"]), describe_error(error))}
    for tool in request.get("tools", []):
        entry = tool["entry"]
        step("tool " + tool["name"])
        try:
            module = import_file(request["adapter"], entry["file"], modules)
            resolve_function(module, entry["file"], entry["function"])
            response["tools"].append({"name": tool["name"]})
        except LoadError as error:
            problem = {"name": tool["name"], "problem": "%s:%s: %s" % (entry["file"], entry["function"], error.problem)}
            if error.file:
                problem["path"] = error.file
            response["tools"].append(problem)
    return response


def check_once():
    request = json.loads(sys.stdin.read())
    nonce = request["nonce"]
    # Adapter and template code must not write on the answer channel: file descriptor 1 becomes stderr.
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8", errors="surrogatepass")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def say(kind, text):
        answers.write("%s %s %s\n" % (nonce, kind, text))
        answers.flush()

    response = check(request, lambda what: say("step", what), say)
    answers.write("%s done %s\n" % (nonce, json.dumps(response, ensure_ascii=False)))
    answers.flush()
    os._exit(0)  # threads the checked code left running must not keep the check alive


def main():
    sys.dont_write_bytecode = True  # never leave __pycache__ in an adapter
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != here]
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "serve":
        serve()
    elif mode == "check":
        check_once()
    else:
        sys.stderr.write("usage: hermit_host.py serve|check\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
