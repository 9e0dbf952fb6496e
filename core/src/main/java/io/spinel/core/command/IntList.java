package io.spinel.core.command;

import java.util.Arrays;

/** A growable list of ints without boxing. */
public final class IntList {
    private int[] a = new int[8];
    private int n;

    public void add(int v) {
        if (n == a.length) a = Arrays.copyOf(a, n * 2);
        a[n++] = v;
    }

    public int get(int i) {
        return a[i];
    }

    public int size() {
        return n;
    }

    public void clear() {
        n = 0;
    }
}
