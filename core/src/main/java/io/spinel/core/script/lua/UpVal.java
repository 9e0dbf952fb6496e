package io.spinel.core.script.lua;

/**
 * A captured variable. While open it names a stack slot of its coroutine; closing copies the value
 * in, so closures created in a loop see separate variables exactly as Lua's upvalues behave.
 */
final class UpVal {
    Coroutine thread;
    int index;
    Object value;
    /** Next open upvalue of the same coroutine (lower stack index). */
    UpVal next;

    UpVal(Coroutine thread, int index) {
        this.thread = thread;
        this.index = index;
    }

    Object get() {
        return thread != null ? thread.stack[index] : value;
    }

    void set(Object v) {
        if (thread != null) thread.stack[index] = v;
        else value = v;
    }

    void close() {
        value = thread.stack[index];
        thread = null;
    }
}
