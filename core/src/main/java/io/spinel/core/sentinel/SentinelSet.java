package io.spinel.core.sentinel;

import io.spinel.core.Client;
import io.spinel.core.Log;
import io.spinel.core.command.CommandError;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;
import io.spinel.core.util.Bytes;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The SENTINEL subcommands that change settings: SET (a master's parameters), CONFIG SET (the
 * global ones) and DEBUG (the timing periods), with Redis's checks and errors.
 */
final class SentinelSet {
    private SentinelSet() {
    }

    /** SENTINEL SET master option value [option value ...]: applied one by one, as Redis does. */
    static void set(Client c, Sentinel s) {
        Args a = c.args();
        SentinelInstance ri = s.masters.get(a.string(2));
        if (ri == null) throw CommandError.err("No such master with that name");
        int changes = 0;
        try {
            for (int j = 3; j < a.count(); j++) {
                int moreArgs = a.count() - 1 - j;
                String option = a.string(j);
                int first = j;
                boolean redacted = false;
                switch (moreArgs > 0 ? option.toLowerCase(Locale.ROOT) : "") {
                    case "down-after-milliseconds" -> {
                        ri.downAfter = positive(a, ++j, option, "SET", false);
                        s.propagateDownAfter(ri);
                    }
                    case "failover-timeout" -> ri.failoverTimeout = positive(a, ++j, option, "SET", false);
                    case "parallel-syncs" -> ri.parallelSyncs = (int) positive(a, ++j, option, "SET", false);
                    case "notification-script", "client-reconfig-script" -> {
                        String value = a.string(++j);
                        boolean notification = option.equalsIgnoreCase("notification-script");
                        if (s.denyScriptsReconfig) {
                            throw CommandError.err("Reconfiguration of scripts path is denied for security reasons. Check "
                                    + "the deny-scripts-reconfig configuration directive in your Sentinel configuration");
                        }
                        if (!value.isEmpty() && !s.scriptExecutable(value)) {
                            throw CommandError.err(notification ? "Notification script seems non existing or non executable"
                                    : "Client reconfiguration script seems non existing or non executable");
                        }
                        if (notification) ri.notificationScript = value.isEmpty() ? null : value;
                        else ri.clientReconfigScript = value.isEmpty() ? null : value;
                    }
                    case "auth-pass" -> {
                        String value = a.string(++j);
                        ri.authPass = value.isEmpty() ? null : value;
                        s.dropInstanceConnections(ri);
                        redacted = true;
                    }
                    case "auth-user" -> {
                        String value = a.string(++j);
                        ri.authUser = value.isEmpty() ? null : value;
                        s.dropInstanceConnections(ri);
                    }
                    case "quorum" -> ri.quorum = (int) positive(a, ++j, option, "SET", false);
                    case "rename-command" -> {
                        if (moreArgs < 2) throw unknownOption(option, "SET");
                        String oldName = a.string(++j);
                        String newName = a.string(++j);
                        if (oldName.isEmpty() || newName.isEmpty()) {
                            throw badArgument(a.string(newName.isEmpty() ? j : j - 1), option, "SET");
                        }
                        ri.renamedCommands.remove(oldName.toLowerCase(Locale.ROOT));
                        if (!oldName.equalsIgnoreCase(newName)) ri.renamedCommands.put(oldName.toLowerCase(Locale.ROOT), newName);
                    }
                    case "master-reboot-down-after-period" -> ri.masterRebootDownAfter = positive(a, ++j, option, "SET", true);
                    default -> throw unknownOption(option, "SET");
                }
                changes++;
                int numArgs = j - first + 1;
                String event = numArgs == 2 ? option + " " + (redacted ? "******" : a.string(first + 1))
                        : numArgs == 3 ? option + " " + a.string(first + 1) + " " + a.string(first + 2) : option;
                s.event(Log.WARNING, "+set", ri, "%@ " + event);
            }
        } catch (CommandError e) {
            if (changes > 0) s.flushConfig();
            throw e;
        }
        if (changes > 0) SentinelCommands.flushConfigAndReply(c, s);
    }

    private static long positive(Args a, int i, String option, String command, boolean zeroOk) {
        long v;
        try {
            v = Bytes.parseLong(a.buf(i), a.off(i), a.len(i));
        } catch (NumberFormatException e) {
            throw badArgument(a.string(i), option, command);
        }
        if (v < 0 || (v == 0 && !zeroOk)) throw badArgument(a.string(i), option, command);
        return v;
    }

    private static CommandError badArgument(String value, String option, String command) {
        return CommandError.err("Invalid argument '" + value + "' for SENTINEL " + command + " '" + option + "'");
    }

    private static CommandError unknownOption(String option, String command) {
        return CommandError.err("Unknown option or number of arguments for SENTINEL " + command + " '" + option + "'");
    }

    /** SENTINEL CONFIG SET option value. */
    static void configSet(Client c, Sentinel s) {
        Args a = c.args();
        String option = a.string(3);
        String value = a.string(4);
        boolean dropConnections = false;
        switch (option.toLowerCase(Locale.ROOT)) {
            case "resolve-hostnames", "announce-hostnames" -> {
                Boolean b = SentinelConfig.yesNo(value);
                if (b == null) throw badConfigValue(value, option);
                if (option.equalsIgnoreCase("resolve-hostnames")) s.resolveHostnames = b;
                else s.announceHostnames = b;
            }
            case "announce-ip" -> s.announceIp = value;
            case "announce-port" -> {
                long port;
                try {
                    port = Bytes.parseLong(a.buf(4), a.off(4), a.len(4));
                } catch (NumberFormatException e) {
                    throw badConfigValue(value, option);
                }
                if (port < 0 || port > 65535) throw badConfigValue(value, option);
                s.announcePort = (int) port;
            }
            case "sentinel-user" -> {
                s.sentinelAuthUser = value.isEmpty() ? null : value;
                dropConnections = true;
            }
            case "sentinel-pass" -> {
                s.sentinelAuthPass = value.isEmpty() ? null : value;
                dropConnections = true;
            }
            default -> throw CommandError.err("Invalid argument '" + option + "' to SENTINEL CONFIG SET");
        }
        SentinelCommands.flushConfigAndReply(c, s);
        if (dropConnections) s.dropSentinelConnections();
    }

    private static CommandError badConfigValue(String value, String option) {
        return CommandError.err("Invalid value '" + value + "' to SENTINEL CONFIG SET '" + option + "'");
    }

    /** SENTINEL DEBUG: the timing periods, or set some of them. */
    static void debug(Client c, Sentinel s) {
        Sentinel.Timing t = s.timing;
        Map<String, Period> periods = new LinkedHashMap<>();
        periods.put("INFO-PERIOD", new Period(() -> t.infoPeriod, v -> t.infoPeriod = v));
        periods.put("PING-PERIOD", new Period(() -> t.pingPeriod, v -> t.pingPeriod = v));
        periods.put("ASK-PERIOD", new Period(() -> t.askPeriod, v -> t.askPeriod = v));
        periods.put("PUBLISH-PERIOD", new Period(() -> t.publishPeriod, v -> t.publishPeriod = v));
        periods.put("DEFAULT-DOWN-AFTER", new Period(() -> t.defaultDownAfter, v -> t.defaultDownAfter = v));
        periods.put("DEFAULT-FAILOVER-TIMEOUT", new Period(() -> t.defaultFailoverTimeout, v -> t.defaultFailoverTimeout = v));
        periods.put("TILT-TRIGGER", new Period(() -> t.tiltTrigger, v -> t.tiltTrigger = v));
        periods.put("TILT-PERIOD", new Period(() -> t.tiltPeriod, v -> t.tiltPeriod = v));
        periods.put("SLAVE-RECONF-TIMEOUT", new Period(() -> t.slaveReconfTimeout, v -> t.slaveReconfTimeout = v));
        periods.put("MIN-LINK-RECONNECT-PERIOD", new Period(() -> t.minLinkReconnectPeriod, v -> t.minLinkReconnectPeriod = v));
        periods.put("ELECTION-TIMEOUT", new Period(() -> t.electionTimeout, v -> t.electionTimeout = v));
        periods.put("SCRIPT-MAX-RUNTIME", new Period(() -> t.scriptMaxRuntime, v -> t.scriptMaxRuntime = v));
        periods.put("SCRIPT-RETRY-DELAY", new Period(() -> t.scriptRetryDelay, v -> t.scriptRetryDelay = v));
        Args a = c.args();
        Reply r = c.reply();
        if (a.count() == 2) {
            Map<String, Long> values = new LinkedHashMap<>();
            periods.forEach((name, p) -> values.put(name, p.get.getAsLong()));
            SentinelCommands.map(r, values);
            return;
        }
        for (int j = 2; j < a.count(); j++) {
            String option = a.string(j);
            Period p = periods.get(option.toUpperCase(Locale.ROOT));
            if (p == null || j == a.count() - 1) {
                throw CommandError.err("Unknown option or number of arguments for SENTINEL DEBUG '" + option + "'");
            }
            p.set.accept(positive(a, ++j, option, "DEBUG", false));
        }
        r.ok();
    }

    private record Period(LongSupplier get, LongConsumer set) {
    }
}
