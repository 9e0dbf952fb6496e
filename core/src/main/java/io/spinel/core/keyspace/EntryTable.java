package io.spinel.core.keyspace;

/** The main table of a database: entries are packed strings or {@link DbObject}s. */
final class EntryTable extends KeyTable {
    @Override
    protected boolean matches(Object e, byte[] k, int off, int len) {
        return Entries.keyEquals(e, k, off, len);
    }

    @Override
    protected long hashOf(Object e) {
        return Entries.hash(this, e);
    }
}
