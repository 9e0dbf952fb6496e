package io.spinel.core;

import io.spinel.core.acl.Acl;
import io.spinel.core.acl.AclCategories;
import io.spinel.core.acl.AclUser;
import io.spinel.core.command.Command;
import io.spinel.core.command.CommandError;
import io.spinel.core.command.CommandHandler;
import io.spinel.core.command.CommandTable;
import io.spinel.core.keyspace.KeyCommands;
import io.spinel.core.protocol.Args;
import io.spinel.core.protocol.Reply;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * The ACL command (Redis's aclCommand): users (SETUSER, DELUSER, GETUSER, LIST, USERS, WHOAMI),
 * ACL files (LOAD, SAVE), categories (CAT), passwords (GENPASS), the log (LOG) and DRYRUN. The
 * users and checks themselves are {@link Acl}'s.
 */
final class AclCommands {
    private AclCommands() {
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    static CommandHandler handler(String name) {
        return switch (name) {
            case "acl|setuser" -> AclCommands::setUser;
            case "acl|deluser" -> AclCommands::delUser;
            case "acl|getuser" -> AclCommands::getUser;
            case "acl|list" -> c -> list(c, false);
            case "acl|users" -> c -> list(c, true);
            case "acl|whoami" -> c -> c.reply().bulkLatin1(c.user.name);
            case "acl|load" -> AclCommands::load;
            case "acl|save" -> AclCommands::save;
            case "acl|cat" -> AclCommands::cat;
            case "acl|genpass" -> AclCommands::genpass;
            case "acl|log" -> AclCommands::log;
            case "acl|dryrun" -> AclCommands::dryrun;
            case "acl|help" -> AclCommands::help;
            default -> null;
        };
    }

    private static void setUser(Client c) {
        Args a = c.args();
        String name = a.string(2);
        if (Acl.badUserName(name)) throw CommandError.err("Usernames can't contain spaces or null characters");
        List<String> rules = new ArrayList<>();
        for (int j = 3; j < a.count(); j++) rules.add(a.string(j));
        String error = c.engine.acl.setUser(name, rules);
        if (error != null) throw CommandError.err(error.replace('\r', ' ').replace('\n', ' '));
        c.reply().ok();
    }

    private static void delUser(Client c) {
        Args a = c.args();
        for (int j = 2; j < a.count(); j++) {
            if (a.string(j).equals("default")) throw CommandError.err("The 'default' user cannot be removed");
        }
        int deleted = 0;
        for (int j = 2; j < a.count(); j++) if (c.engine.acl.deleteUser(a.string(j))) deleted++;
        c.reply().integer(deleted);
    }

    private static void getUser(Client c) {
        AclUser u = c.engine.acl.user(c.args().string(2));
        Reply r = c.reply();
        if (u == null) {
            r.nullBulk();
            return;
        }
        AclUser.Details d = u.details();
        r.mapHeader(6);
        r.bulk("flags");
        r.setHeader(d.flags().size());
        for (String f : d.flags()) r.bulk(f);
        r.bulk("passwords");
        r.arrayHeader(d.passwords().size());
        for (String p : d.passwords()) r.bulk(p);
        selector(r, d.selectors().get(0));
        r.bulk("selectors");
        r.arrayHeader(d.selectors().size() - 1);
        for (int i = 1; i < d.selectors().size(); i++) {
            r.mapHeader(3);
            selector(r, d.selectors().get(i));
        }
    }

    private static void selector(Reply r, String[] commandsKeysChannels) {
        r.bulk("commands");
        r.bulkLatin1(commandsKeysChannels[0]);
        r.bulk("keys");
        r.bulkLatin1(commandsKeysChannels[1]);
        r.bulk("channels");
        r.bulkLatin1(commandsKeysChannels[2]);
    }

    private static void list(Client c, boolean namesOnly) {
        Reply r = c.reply();
        r.arrayHeader(c.engine.acl.users().size());
        for (AclUser u : c.engine.acl.users()) {
            r.bulkLatin1(namesOnly ? u.name : "user " + u.name + " " + u.describe());
        }
    }

    private static final String NO_ACL_FILE = "This Redis instance is not configured to use an ACL file. You may "
            + "want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have "
            + "a Redis configuration file set) in order to store users in the Redis configuration.";

    private static void load(Client c) {
        Path file = c.engine.aclFile();
        if (file == null) throw CommandError.err(NO_ACL_FILE);
        String errors = c.engine.acl.loadFile(file, c.engine.config().get("aclfile"));
        if (errors != null) throw CommandError.err(errors);
        c.reply().ok();
    }

    private static void save(Client c) {
        Path file = c.engine.aclFile();
        if (file == null) throw CommandError.err(NO_ACL_FILE);
        try {
            c.engine.acl.saveFile(file);
        } catch (IOException e) {
            c.engine.log().warning("Writing ACL file for ACL SAVE: " + e.getMessage());
            throw CommandError.err("There was an error trying to save the ACLs. Please check the server logs for "
                    + "more information");
        }
        c.reply().ok();
    }

    private static void cat(Client c) {
        Args a = c.args();
        Reply r = c.reply();
        if (a.count() == 2) {
            r.arrayHeader(AclCategories.NAMES.length);
            for (String n : AclCategories.NAMES) r.bulk(n);
            return;
        }
        if (a.count() != 3) throw CommandError.subcommandSyntax(a);
        long category = AclCategories.byName(a.string(2));
        if (category == 0) throw CommandError.err("Unknown category '" + Engine.truncate(a.cString(2), 128) + "'");
        // every command of the server's table (a data server's or a Sentinel's) in the category,
        // a container's subcommands after it
        List<String> names = new ArrayList<>();
        io.spinel.core.acl.AclCommandSet set = c.engine.acl().commands();
        for (int id : set.topLevel()) {
            if ((AclCategories.of(id) & category) != 0) names.add(CommandTable.aclName(id));
            for (int sub : set.subcommands(id)) {
                if ((AclCategories.of(sub) & category) != 0) names.add(CommandTable.aclName(sub));
            }
        }
        r.arrayHeader(names.size());
        for (String n : names) r.bulk(n);
    }

    private static void genpass(Client c) {
        Args a = c.args();
        if (a.count() > 3) throw CommandError.subcommandSyntax(a);
        long bits = 256;
        if (a.count() == 3) bits = c.argLong(2);
        if (bits <= 0 || bits > 4096) {
            throw CommandError.err("ACL GENPASS argument must be the number of bits for the output password, a "
                    + "positive number up to 4096");
        }
        int chars = (int) ((bits + 3) / 4);
        byte[] out = new byte[chars];
        byte[] random = new byte[chars];
        RANDOM.nextBytes(random);
        for (int i = 0; i < chars; i++) out[i] = (byte) "0123456789abcdef".charAt(random[i] & 0xf);
        c.reply().bulk(out);
    }

    private static void log(Client c) {
        Args a = c.args();
        if (a.count() > 3) throw CommandError.subcommandSyntax(a);
        long count = 10;
        if (a.count() == 3) {
            if (a.is(2, "reset")) {
                c.engine.acl.resetLog();
                c.reply().ok();
                return;
            }
            count = Math.max(0, c.argLong(2));
        }
        java.util.Collection<Acl.LogEntry> entries = c.engine.acl.logEntries();
        count = Math.min(count, entries.size());
        Reply r = c.reply();
        r.arrayHeader(count);
        long now = System.currentTimeMillis();
        for (Acl.LogEntry e : entries) {
            if (count-- == 0) break;
            r.mapHeader(7);
            r.bulk("count");
            r.integer(e.count);
            r.bulk("reason");
            r.bulk(e.reasonName());
            r.bulk("context");
            r.bulk(e.context);
            r.bulk("object");
            r.bulk(e.object);
            r.bulk("username");
            r.bulkLatin1(e.username);
            r.bulk("age-seconds");
            r.dbl((double) (now - e.createdMillis) / 1000);
            r.bulk("client-info");
            r.bulkLatin1(e.clientInfo);
        }
    }

    private static void dryrun(Client c) {
        Args a = c.args();
        AclUser u = c.engine.acl.user(a.string(2));
        if (u == null) throw CommandError.err("User '" + a.cString(2) + "' not found");
        Args sub = new Args();
        for (int j = 3; j < a.count(); j++) sub.add(a.buf(j), a.off(j), a.len(j));
        Command cmd = c.engine.commands.resolve(sub);
        if (cmd == null) throw CommandError.err("Command '" + a.cString(3) + "' not found");
        if (!cmd.arityOk(sub.count())) throw CommandError.err("wrong number of arguments for '" + cmd.name + "' command");
        Acl acl = c.engine.acl;
        int result = acl.check(u, cmd, sub);
        Reply r = c.reply();
        switch (result) {
            case Acl.OK -> r.ok();
            case Acl.DENIED_CMD -> r.bulk("This user has no permissions to run the '" + cmd.name + "' command");
            case Acl.DENIED_KEY -> r.bulk(("This user has no permissions to access the '" + sub.cString(acl.deniedPos())
                    + "' key").getBytes(StandardCharsets.ISO_8859_1));
            default -> r.bulk(("This user has no permissions to access the '" + sub.cString(acl.deniedPos())
                    + "' channel").getBytes(StandardCharsets.ISO_8859_1));
        }
    }

    private static void help(Client c) {
        KeyCommands.helpReply(c, new String[] {
                "CAT [<category>]",
                "    List all commands that belong to <category>, or all command categories",
                "    when no category is specified.",
                "DELUSER <username> [<username> ...]",
                "    Delete a list of users.",
                "DRYRUN <username> <command> [<arg> ...]",
                "    Returns whether the user can execute the given command without executing the command.",
                "GETUSER <username>",
                "    Get the user's details.",
                "GENPASS [<bits>]",
                "    Generate a secure 256-bit user password. The optional `bits` argument can",
                "    be used to specify a different size.",
                "LIST",
                "    Show users details in config file format.",
                "LOAD",
                "    Reload users from the ACL file.",
                "LOG [<count> | RESET]",
                "    Show the ACL log entries.",
                "SAVE",
                "    Save the current config to the ACL file.",
                "SETUSER <username> <attribute> [<attribute> ...]",
                "    Create or modify a user with the specified attributes.",
                "USERS",
                "    List all the registered usernames.",
                "WHOAMI",
                "    Return the current connection username.",
        });
    }
}
