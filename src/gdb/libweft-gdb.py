# gdb support for Weft's user-level threads (ULTs).
#
# gdb sees kernel threads only: attached to a stuck rank it shows a worker
# idle in epoll_wait, while the ULTs that wait in MPI_Recv sit on stacks
# gdb knows nothing about. This extension adds two commands:
#
#   info weft-threads        every ULT: id, state, name, the frame it is in
#   weft-thread N|all [CMD]  run CMD (default: bt) on ULT N's stack, or on
#                            every ULT's
#
# It goes, as <libweft's real file name>-gdb.py, beside libweft in the
# build tree and under <datadir>/gdb/auto-load/<libdir>/ when installed
# (src/CMakeLists.txt says why), so gdb loads it with the library from a
# directory in its auto-load safe-path; `source` works too. It needs
# libweft's debug info (a Debug or RelWithDebInfo build).
#
# Where the threads are. Every descriptor is on one list of the runtime's
# thread registry (wf_thread_registry, src/sched/thread.c); descriptors a
# worker keeps for reuse are marked `cached` and skipped. A thread is
# running if a worker's `current` is it, ready if a run queue holds it,
# finished if its flags say so, and blocked otherwise. What a blocked
# thread waits on is read off its stack: the outermost frame inside a Weft
# library before the program's own code (MPI_Recv, weft_mutex_lock, ...).
#
# How a ULT's stack is shown. A thread that is not running left its
# callee-saved registers on its own stack when it switched out
# (src/arch/ctx_*.S tables the frame) and its stack pointer in t->ctx. The
# commands copy that context into the selected kernel thread's registers,
# let gdb unwind from there, and put the kernel thread's registers back,
# whatever happens (as Go's runtime-gdb.py does for goroutines). This
# writes registers, so it works on a live process, not on a core file. A
# running thread is shown on the kernel thread of its worker instead.

import gdb

FRAME_LIMIT = 64

# Saved frame of wf_ctx_switch, per architecture (src/arch/ctx_*.S): the
# offset from the saved sp of each register it restores, the resume
# address as the program counter, and the stack pointer once it returns.
X86_64 = {
    "slots": [("r15", 8), ("r14", 16), ("r13", 24), ("r12", 32),
              ("rbx", 40), ("rbp", 48), ("rip", 56)],
    "sp": ("rsp", 64),
}
AARCH64 = {
    "slots": [("x%d" % (19 + i), 8 * i) for i in range(10)] +
             [("x29", 80), ("x30", 88), ("pc", 88)],
    "sp": ("sp", 176),
}
# ucontext fallback build (x86-64 only): indices into uc_mcontext.gregs.
X86_64_UCONTEXT = {"r12": 4, "r13": 5, "r14": 6, "r15": 7, "rbp": 10,
                   "rbx": 11, "rsp": 15, "rip": 16}


def _arch():
    name = gdb.selected_inferior().architecture().name()
    if "x86-64" in name:
        return X86_64
    if "aarch64" in name:
        return AARCH64
    raise gdb.GdbError("weft: no context layout for architecture %s" % name)


def _global(name):
    try:
        return gdb.parse_and_eval(name)
    except gdb.error as e:
        raise gdb.GdbError("weft: cannot read %s (is libweft loaded, with debug "
                           "info?): %s" % (name, e))


def _registry_threads():
    reg = _global("wf_thread_registry")
    lo, hi = reg.type.range()
    found, seen = [], set()
    for i in range(lo, hi + 1):
        t = reg[i]["head"]
        while int(t) != 0 and int(t) not in seen: # a torn list must not hang gdb
            seen.add(int(t))
            # id 0: a descriptor being set up by weft_thread_create
            if not int(t["reg"]["cached"]) and int(t["id"]) != 0:
                found.append(t)
            t = t["reg"]["next"]
    found.sort(key=lambda t: int(t["id"]))
    return found


def _workers():
    g = _global("wf_g")
    return [g["workers"][i] for i in range(int(g["nworkers"]))]


def _scheduler_view():
    """Map each running thread to its worker, and collect queued threads."""
    running, queued = {}, set()
    for w in _workers():
        if int(w["current"]) != 0:
            running[int(w["current"])] = w
        heads = w["rq"]["head"]
        lo, hi = heads.type.range()
        for p in range(lo, hi + 1):
            t = heads[p]
            while int(t) != 0 and int(t) not in queued:
                queued.add(int(t))
                t = t["rq_next"]
    return running, queued


def _saved_registers(t):
    """The register values a switch back to t would restore."""
    ctx = t["ctx"]
    if "uc" in [f.name for f in ctx.type.strip_typedefs().fields()]:
        gregs = ctx["uc"]["uc_mcontext"]["gregs"]
        return {r: int(gregs[i]) & (2 ** 64 - 1) for r, i in X86_64_UCONTEXT.items()}
    layout = _arch()
    sp = int(ctx["sp"])
    mem = gdb.selected_inferior()
    regs = {}
    for reg, off in layout["slots"]:
        regs[reg] = int.from_bytes(bytes(mem.read_memory(sp + off, 8)), "little")
    regs[layout["sp"][0]] = sp + layout["sp"][1]
    return regs


class _LoadedContext:
    """Within the block, the selected kernel thread's registers are t's."""

    def __init__(self, regs):
        self.regs = regs
        self.saved = {}
        self.thread = None

    def __enter__(self):
        self.thread = gdb.selected_thread()
        if self.thread is None:
            raise gdb.GdbError("weft: no process (attach to one first)")
        gdb.newest_frame().select()
        for reg in self.regs:
            self.saved[reg] = int(gdb.parse_and_eval("$" + reg)) & (2 ** 64 - 1)
        try:
            for reg, val in self.regs.items():
                gdb.execute("set $%s = %d" % (reg, val), to_string=True)
        except gdb.error as e:
            self._restore()
            raise gdb.GdbError("weft: cannot load a thread's registers (%s); a "
                               "core file cannot be changed, only a live process" % e)
        return self

    def _restore(self):
        # Frame 0 of the same kernel thread: in an outer frame, `set $reg`
        # would write the slot where that frame's caller saved the register.
        self.thread.switch()
        gdb.newest_frame().select()
        for reg, val in self.saved.items():
            gdb.execute("set $%s = %d" % (reg, val), to_string=True)
        gdb.newest_frame().select()

    def __exit__(self, *exc):
        self._restore()
        return False


class _OnWorker:
    """Within the block, the kernel thread of worker w is selected."""

    def __init__(self, w):
        self.tid = int(w["tid"])
        self.prev = None

    def __enter__(self):
        self.prev = gdb.selected_thread()
        for th in gdb.selected_inferior().threads():
            if th.ptid[1] == self.tid:
                th.switch()
                gdb.newest_frame().select()
                return self
        raise gdb.GdbError("weft: no kernel thread with tid %d" % self.tid)

    def __exit__(self, *exc):
        if self.prev is not None and self.prev.is_valid():
            self.prev.switch()
        return False


def _on_stack_of(t, running):
    """A context manager that puts gdb on t's stack."""
    w = running.get(int(t))
    if w is not None:
        return _OnWorker(w)
    return _LoadedContext(_saved_registers(t))


def _is_weft_frame(frame):
    lib = gdb.solib_name(frame.pc())
    return lib is not None and lib.rsplit("/", 1)[-1].startswith("libweft")


def _describe_frame(frame):
    name = frame.name() or "0x%x" % frame.pc()
    sal = frame.find_sal()
    if sal.symtab is not None:
        return "%s () at %s:%d" % (name, sal.symtab.filename.rsplit("/", 1)[-1], sal.line)
    return "%s ()" % name


def _where(t):
    """(innermost frame outside Weft, outermost Weft frame above it, and
    whether a signal handler - a preemption tick - is on the way)."""
    frame, entry, preempted, n = gdb.newest_frame(), None, False, 0
    if frame.name() == "ctx_trampoline":
        return "not started: %s" % t["fn"], None, False
    while frame is not None and n < FRAME_LIMIT:
        if frame.type() == gdb.SIGTRAMP_FRAME:
            preempted = True
        elif not _is_weft_frame(frame):
            return _describe_frame(frame), entry, preempted
        else:
            entry = frame.name() or entry
        frame, n = frame.older(), n + 1
    return _describe_frame(gdb.newest_frame()), entry, preempted


def _public_name(entry):
    """MPI_X for PMPI_X: the program called MPI_X, an alias of PMPI_X that
    the debug info does not name."""
    return entry[1:] if entry.startswith("PMPI_") else entry


def _state(t, running, queued):
    if int(t["flags"]) & int(_global("WF_T_FINISHED")) or int(t["exiting"]):
        return "finished", False
    w = running.get(int(t))
    if w is not None:
        return "running on worker %d" % int(w["index"]), True
    if int(t) in queued:
        return "ready", True
    return "blocked", True


def _name(t):
    name = t["name"].string(errors="replace")
    return name if name else "ult-%d" % int(t["id"])


def _find(tid):
    for t in _registry_threads():
        if int(t["id"]) == tid:
            return t
    raise gdb.GdbError("weft: no user-level thread %d (see info weft-threads)" % tid)


class InfoWeftThreads(gdb.Command):
    """List Weft's user-level threads: id, state, name and current frame.

The frame is the innermost one outside Weft's libraries; for a blocked
thread the state names the Weft or MPI call it waits in."""

    def __init__(self):
        super().__init__("info weft-threads", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        threads = _registry_threads()
        running, queued = _scheduler_view()
        rows = []
        for t in threads:
            state, has_stack = _state(t, running, queued)
            frame = ""
            if has_stack:
                try:
                    with _on_stack_of(t, running):
                        frame, entry, preempted = _where(t)
                    if state == "blocked" and entry:
                        state = "blocked in %s" % _public_name(entry)
                    elif state == "ready" and preempted:
                        state = "ready (preempted)"
                except (gdb.error, gdb.MemoryError, gdb.GdbError) as e:
                    frame = "<%s>" % e
            rows.append((str(int(t["id"])), state, _name(t), frame))
        head = ("Id", "State", "Name", "Frame")
        widths = [max(len(r[i]) for r in rows + [head]) for i in range(3)]
        for r in [head] + rows:
            gdb.write("  ".join(c.ljust(widths[i]) for i, c in enumerate(r[:3]))
                      + "  " + r[3] + "\n")


class WeftThread(gdb.Command):
    """Run a command on a Weft user-level thread's stack.

Usage: weft-thread ID|all [COMMAND]   (COMMAND defaults to bt)
The thread's saved registers are loaded into the selected kernel thread for
the command, and the kernel thread's own registers are put back after it.
For a running thread, the command runs on its worker's kernel thread.
`all` runs the command on every thread that has a stack."""

    def __init__(self):
        super().__init__("weft-thread", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        parts = arg.split(None, 1)
        if not parts or not (parts[0].isdigit() or parts[0] == "all"):
            raise gdb.GdbError("usage: weft-thread ID|all [COMMAND]")
        cmd = parts[1] if len(parts) > 1 else "bt"
        running, queued = _scheduler_view()
        if parts[0] != "all":
            self._run(_find(int(parts[0])), cmd, running, queued, from_tty, True)
            return
        for t in _registry_threads():
            try:
                self._run(t, cmd, running, queued, from_tty, False)
            except (gdb.error, gdb.MemoryError, gdb.GdbError) as e:
                gdb.write("%s\n" % e)

    @staticmethod
    def _run(t, cmd, running, queued, from_tty, alone):
        state, has_stack = _state(t, running, queued)
        if not has_stack:
            if alone:
                raise gdb.GdbError("weft: thread %d has finished; it has no stack"
                                   % int(t["id"]))
            return
        gdb.write("\n[weft thread %d (%s), %s]\n" % (int(t["id"]), _name(t), state))
        with _on_stack_of(t, running):
            gdb.execute(cmd, from_tty)


InfoWeftThreads()
WeftThread()
