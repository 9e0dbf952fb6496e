package io.spinel.core.script;

import io.spinel.core.Client;

import java.util.Arrays;

/**
 * The "connection" of a script's client: not connected to anything, it keeps the reply bytes a
 * command produced (only big replies spill here; the rest stays in the client's reply buffer) so
 * they can be turned into Lua values.
 */
final class CaptureConnection extends Client.Unconnected {
    private byte[] buf = new byte[0];
    private int len;

    @Override
    public void write(byte[] b, int off, int n) {
        if (len + n > buf.length) buf = Arrays.copyOf(buf, Math.max(len + n, Math.max(256, buf.length * 2)));
        System.arraycopy(b, off, buf, len, n);
        len += n;
    }

    int length() {
        return len;
    }

    byte[] buffer() {
        return buf;
    }

    void clear() {
        len = 0;
        if (buf.length > 1 << 20) buf = new byte[0];
    }
}
