package io.spinel.core.script.lua;

/**
 * A Lua table laid out exactly as Lua 5.1 lays it out: an array part for keys 1..n and a hash part
 * of 2^k nodes with chained scatter (Brent's variation), the same main positions, the same free
 * slot search and the same rehash sizing. That is what makes {@code next}/{@code pairs} visit keys
 * in the order Redis's Lua visits them, and {@code #t} find the same border, both of which leak
 * into script replies.
 */
public final class LuaTable {
    private static final Object[] EMPTY = new Object[0];
    private static final Object[] DUMMY_KEYS = new Object[1];
    private static final Object[] DUMMY_VALS = new Object[1];
    private static final int[] DUMMY_NEXT = {-1};
    /** Largest power of two for the array part (Lua's MAXBITS). */
    private static final int MAXBITS = 30;

    Object[] array = EMPTY;
    int sizeArray;
    private Object[] keys = DUMMY_KEYS;
    private Object[] vals = DUMMY_VALS;
    private int[] nexts = DUMMY_NEXT;
    private boolean dummy = true;
    private int lastFree;

    LuaTable metatable;
    boolean readonly;

    public LuaTable() {
    }

    public LuaTable(int narray, int nhash) {
        if (narray > 0) setArrayVector(narray);
        if (nhash > 0) setNodeVector(nhash);
    }

    public LuaTable metatable() {
        return metatable;
    }

    public void setMetatable(LuaTable mt) {
        this.metatable = mt;
    }

    public boolean isReadonly() {
        return readonly;
    }

    public void setReadonly(boolean ro) {
        this.readonly = ro;
    }

    private int sizeNode() {
        return keys.length;
    }

    // ---- hashing --------------------------------------------------------------------------------

    private int mainPosition(Object key) {
        int size = keys.length;
        if (key instanceof Double) return hashNum(((Double) key).doubleValue(), size);
        if (key instanceof LuaString) return ((LuaString) key).luaHash() & (size - 1);
        if (key instanceof Boolean) return (((Boolean) key) ? 1 : 0) & (size - 1);
        return Integer.remainderUnsigned(System.identityHashCode(key), (size - 1) | 1);
    }

    private static int hashNum(double n, int size) {
        if (n == 0) return 0;
        long bits = Double.doubleToRawLongBits(n);
        int sum = (int) bits + (int) (bits >>> 32);
        return Integer.remainderUnsigned(sum, (size - 1) | 1);
    }

    static boolean rawEquals(Object a, Object b) {
        if (a instanceof Double) return b instanceof Double && ((Double) a).doubleValue() == ((Double) b).doubleValue();
        if (a == b) return true;
        if (a == null || b == null) return false;
        if (a instanceof LuaString) return b instanceof LuaString && ((LuaString) a).equals((LuaString) b);
        return false;
    }

    /** The integer a number key stands for when it is one (Lua's arrayindex), else -1. */
    private static int arrayIndex(double n) {
        int k = (int) n;
        return k == n ? k : -1;
    }

    // ---- lookup ---------------------------------------------------------------------------------

    public Object get(Object key) {
        if (key instanceof LuaString) return getStr((LuaString) key);
        if (key instanceof Double) {
            double n = (Double) key;
            int k = (int) n;
            if (k == n) return getInt(k);
        }
        if (key == null) return null;
        int n = mainPosition(key);
        do {
            if (rawEquals(keys[n], key)) return vals[n];
            n = nexts[n];
        } while (n >= 0);
        return null;
    }

    public Object getInt(int key) {
        if (Integer.compareUnsigned(key - 1, sizeArray) < 0) return array[key - 1];
        double nk = key;
        int n = hashNum(nk, keys.length);
        do {
            Object k = keys[n];
            if (k instanceof Double && ((Double) k).doubleValue() == nk) return vals[n];
            n = nexts[n];
        } while (n >= 0);
        return null;
    }

    public Object getStr(LuaString key) {
        int n = key.luaHash() & (keys.length - 1);
        do {
            Object k = keys[n];
            if (k instanceof LuaString && ((LuaString) k).equals(key)) return vals[n];
            n = nexts[n];
        } while (n >= 0);
        return null;
    }

    public Object get(String key) {
        return getStr(LuaString.valueOf(key));
    }

    /** Node index holding the key, or -1 (array part not consulted). */
    private int findNode(Object key) {
        int n = mainPosition(key);
        do {
            if (rawEquals(keys[n], key)) return n;
            n = nexts[n];
        } while (n >= 0);
        return -1;
    }

    // ---- assignment -----------------------------------------------------------------------------

    /** t[key] = value without metamethods (Lua's luaH_set then store). */
    public void rawset(Object key, Object value) {
        if (key instanceof Double) {
            double d = (Double) key;
            int k = (int) d;
            // a new -0 key is stored as given (Lua copies the key), so it takes the generic path
            if (k == d && (k != 0 || Double.doubleToRawLongBits(d) == 0)) {
                setInt(k, value);
                return;
            }
            if (Double.isNaN(d)) throw LuaError.runtime("table index is NaN");
        } else if (key == null) {
            throw LuaError.runtime("table index is nil");
        }
        int n = key instanceof LuaString ? findStr((LuaString) key) : findNode(key);
        if (n >= 0) {
            vals[n] = value;
            return;
        }
        newKey(key, value);
    }

    public void rawset(String key, Object value) {
        rawset(LuaString.valueOf(key), value);
    }

    private int findStr(LuaString key) {
        int n = key.luaHash() & (keys.length - 1);
        do {
            Object k = keys[n];
            if (k instanceof LuaString && ((LuaString) k).equals(key)) return n;
            n = nexts[n];
        } while (n >= 0);
        return -1;
    }

    public void setInt(int key, Object value) {
        if (Integer.compareUnsigned(key - 1, sizeArray) < 0) {
            array[key - 1] = value;
            return;
        }
        double nk = key;
        int n = hashNum(nk, keys.length);
        do {
            Object k = keys[n];
            if (k instanceof Double && ((Double) k).doubleValue() == nk) {
                vals[n] = value;
                return;
            }
            n = nexts[n];
        } while (n >= 0);
        newKey(LuaValues.num(nk), value);
    }

    /** Inserts a key known to be absent (Lua's newkey), then stores the value. */
    private void newKey(Object key, Object value) {
        int mp = mainPosition(key);
        if (vals[mp] != null || dummy) {
            int free = freePosition();
            if (free < 0) {
                rehash(key);
                rawset(key, value);
                return;
            }
            int other = mainPosition(keys[mp]);
            if (other != mp) {
                // the colliding node is out of its main position: move it to the free slot
                while (nexts[other] != mp) other = nexts[other];
                nexts[other] = free;
                keys[free] = keys[mp];
                vals[free] = vals[mp];
                nexts[free] = nexts[mp];
                nexts[mp] = -1;
                vals[mp] = null;
            } else {
                // the colliding node is in its main position: the new key takes the free slot
                nexts[free] = nexts[mp];
                nexts[mp] = free;
                mp = free;
            }
        }
        keys[mp] = key;
        vals[mp] = value;
    }

    private int freePosition() {
        while (lastFree-- > 0) {
            if (keys[lastFree] == null) return lastFree;
        }
        return -1;
    }

    // ---- sizing ---------------------------------------------------------------------------------

    static int ceilLog2(int x) {
        return x <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(x - 1);
    }

    private void setArrayVector(int size) {
        Object[] a = new Object[size];
        System.arraycopy(array, 0, a, 0, Math.min(sizeArray, size));
        array = a;
        sizeArray = size;
    }

    private void setNodeVector(int size) {
        if (size == 0) {
            keys = DUMMY_KEYS;
            vals = DUMMY_VALS;
            nexts = DUMMY_NEXT;
            dummy = true;
            lastFree = 0;
            return;
        }
        int lsize = ceilLog2(size);
        if (lsize > MAXBITS) throw LuaError.runtime("table overflow");
        size = 1 << lsize;
        keys = new Object[size];
        vals = new Object[size];
        nexts = new int[size];
        java.util.Arrays.fill(nexts, -1);
        dummy = false;
        lastFree = size;
    }

    private void resize(int nasize, int nhsize) {
        int oldasize = sizeArray;
        Object[] oldKeys = keys;
        Object[] oldVals = vals;
        boolean oldDummy = dummy;
        if (nasize > oldasize) setArrayVector(nasize);
        setNodeVector(nhsize);
        if (nasize < oldasize) {
            Object[] old = array;
            sizeArray = nasize;
            for (int i = nasize; i < oldasize; i++) {
                if (old[i] != null) setInt(i + 1, old[i]);
            }
            Object[] a = new Object[nasize];
            System.arraycopy(old, 0, a, 0, nasize);
            array = nasize == 0 ? EMPTY : a;
        }
        if (!oldDummy) {
            for (int i = oldKeys.length - 1; i >= 0; i--) {
                if (oldVals[i] != null) rawset(oldKeys[i], oldVals[i]);
            }
        }
    }

    /** Makes room for n array slots at once (SETLIST, lua_createtable). */
    public void resizeArray(int nasize) {
        resize(nasize, dummy ? 0 : sizeNode());
    }

    private void rehash(Object extraKey) {
        int[] nums = new int[MAXBITS + 1];
        int nasize = numUseArray(nums);
        int totaluse = nasize;
        int[] pna = {nasize};
        totaluse += numUseHash(nums, pna);
        nasize = pna[0];
        nasize += countInt(extraKey, nums);
        totaluse++;
        int[] na = {nasize};
        int inArray = computeSizes(nums, na);
        resize(na[0], totaluse - inArray);
    }

    private static int computeSizes(int[] nums, int[] narray) {
        int a = 0, na = 0, n = 0;
        for (int i = 0, twotoi = 1; twotoi / 2 < narray[0]; i++, twotoi *= 2) {
            if (nums[i] > 0) {
                a += nums[i];
                if (a > twotoi / 2) {
                    n = twotoi;
                    na = a;
                }
            }
            if (a == narray[0]) break;
        }
        narray[0] = n;
        return na;
    }

    private static int countInt(Object key, int[] nums) {
        if (key instanceof Double) {
            int k = arrayIndex((Double) key);
            if (k > 0 && k <= (1 << MAXBITS)) {
                nums[ceilLog2(k)]++;
                return 1;
            }
        }
        return 0;
    }

    private int numUseArray(int[] nums) {
        int ause = 0;
        int i = 1;
        for (int lg = 0, ttlg = 1; lg <= MAXBITS; lg++, ttlg *= 2) {
            int lc = 0;
            int lim = ttlg;
            if (lim > sizeArray) {
                lim = sizeArray;
                if (i > lim) break;
            }
            for (; i <= lim; i++) {
                if (array[i - 1] != null) lc++;
            }
            nums[lg] += lc;
            ause += lc;
        }
        return ause;
    }

    private int numUseHash(int[] nums, int[] pnasize) {
        int totaluse = 0;
        int ause = 0;
        if (dummy) return 0;
        for (int i = keys.length - 1; i >= 0; i--) {
            if (vals[i] != null) {
                ause += countInt(keys[i], nums);
                totaluse++;
            }
        }
        pnasize[0] += ause;
        return totaluse;
    }

    // ---- length ---------------------------------------------------------------------------------

    /** Lua's luaH_getn: a border (t[n] ~= nil and t[n+1] == nil), found as Lua finds it. */
    public int length() {
        int j = sizeArray;
        if (j > 0 && array[j - 1] == null) {
            int i = 0;
            while (j - i > 1) {
                int m = (i + j) >>> 1;
                if (array[m - 1] == null) j = m;
                else i = m;
            }
            return i;
        }
        if (dummy) return j;
        return unboundSearch(j);
    }

    private int unboundSearch(int j0) {
        long i = j0;
        long j = i + 1;
        while (getInt((int) j) != null) {
            i = j;
            j *= 2;
            if (j > Integer.MAX_VALUE) {
                int k = 1;
                while (getInt(k) != null) k++;
                return k - 1;
            }
        }
        while (j - i > 1) {
            long m = (i + j) / 2;
            if (getInt((int) m) == null) j = m;
            else i = m;
        }
        return (int) i;
    }

    // ---- traversal ------------------------------------------------------------------------------

    /**
     * The traversal position after {@code key} (Lua's findindex): -1 for nil, array positions
     * first, then node positions after them.
     */
    private int findIndex(Object key) {
        if (key == null) return -1;
        if (key instanceof Double) {
            int i = arrayIndex((Double) key);
            if (i > 0 && i <= sizeArray) return i - 1;
        }
        int n = mainPosition(key);
        do {
            if (rawEquals(keys[n], key)) return n + sizeArray;
            n = nexts[n];
        } while (n >= 0);
        throw LuaError.runtime("invalid key to 'next'");
    }

    /**
     * Lua's next: writes the key/value after {@code key} into out[0]/out[1] and returns true, or
     * returns false at the end.
     */
    public boolean next(Object key, Object[] out) {
        int i = findIndex(key);
        for (i++; i < sizeArray; i++) {
            if (array[i] != null) {
                out[0] = LuaValues.num(i + 1);
                out[1] = array[i];
                return true;
            }
        }
        if (dummy) return false;
        for (i -= sizeArray; i < keys.length; i++) {
            if (vals[i] != null) {
                out[0] = keys[i];
                out[1] = vals[i];
                return true;
            }
        }
        return false;
    }

    /** Position-based iteration for Java callers: next slot with a value at or after pos, or -1. */
    public int nextSlot(int pos) {
        for (; pos < sizeArray; pos++) if (array[pos] != null) return pos;
        if (dummy) return -1;
        for (int i = pos - sizeArray; i < keys.length; i++) if (vals[i] != null) return i + sizeArray;
        return -1;
    }

    public Object slotKey(int slot) {
        return slot < sizeArray ? LuaValues.num(slot + 1) : keys[slot - sizeArray];
    }

    public Object slotValue(int slot) {
        return slot < sizeArray ? array[slot] : vals[slot - sizeArray];
    }

    /** Rough heap footprint, for used_memory_lua-style accounting. */
    long memoryEstimate() {
        return 56 + (long) sizeArray * 8 + (dummy ? 0 : (long) keys.length * 20);
    }
}
