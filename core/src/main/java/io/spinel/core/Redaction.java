package io.spinel.core;

import io.spinel.core.protocol.Args;
import io.spinel.core.util.Bytes;

/**
 * The arguments Redis hides from MONITOR and SLOWLOG (its redactClientCommandArgument calls):
 * passwords of AUTH, HELLO AUTH and MIGRATE AUTH/AUTH2, everything after ACL SETUSER, and the
 * values of sensitive options in CONFIG SET. Worked out from the arguments only when a command
 * is being logged, never on the ordinary dispatch path.
 */
final class Redaction {
    static final byte[] REDACTED = Bytes.ascii("(redacted)");

    private Redaction() {
    }

    /** Which arguments of c's current command to show as "(redacted)", or null for none. */
    static boolean[] of(Client c) {
        Args a = c.args;
        int n = a.count();
        if (n < 2) return null;
        boolean[] r = null;
        if (a.is(0, "auth")) {
            if (n > 3) return null; // a syntax error, refused before anything was redacted
            r = new boolean[n];
            for (int i = 1; i < n; i++) r[i] = true;
        } else if (a.is(0, "hello")) {
            // a protocol version HELLO refuses ends it before the options (and their redaction)
            if (!a.is(1, "2") && !a.is(1, "3")) return null;
            for (int j = 2; j < n; j++) {
                int more = n - 1 - j;
                if (a.is(j, "auth") && more >= 2) {
                    if (r == null) r = new boolean[n];
                    r[j + 1] = r[j + 2] = true;
                    j += 2;
                } else if (a.is(j, "setname") && more >= 1) {
                    j++;
                } else {
                    break;
                }
            }
        } else if (a.is(0, "migrate")) {
            for (int j = 6; j < n; j++) {
                int more = n - 1 - j;
                if (a.is(j, "auth") && more >= 1) {
                    if (r == null) r = new boolean[n];
                    r[++j] = true;
                } else if (a.is(j, "auth2") && more >= 2) {
                    if (r == null) r = new boolean[n];
                    r[j + 1] = r[j + 2] = true;
                    j += 2;
                } else if (!a.is(j, "copy") && !a.is(j, "replace")) {
                    break;
                }
            }
        } else if (a.is(0, "acl") && a.is(1, "setuser")) {
            r = new boolean[n];
            for (int i = 2; i < n; i++) r[i] = true;
        } else if (a.is(0, "config") && a.is(1, "set")) {
            for (int i = 2; i + 1 < n; i += 2) {
                if (a.is(i, "masterauth") || a.is(i, "masteruser") || a.is(i, "requirepass")) {
                    if (r == null) r = new boolean[n];
                    r[i + 1] = true;
                }
            }
        }
        return r;
    }
}
