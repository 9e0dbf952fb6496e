package io.spinel.core.script.lua;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;

import static io.spinel.core.script.lua.Lexer.*;

/**
 * Lua 5.1's one-pass compiler: recursive-descent parser and register-allocating code generator
 * producing the same instructions luac does, so that runtime behaviour (register reuse, table
 * constructor sizes, error messages that name variables) matches Redis's Lua.
 */
final class Parser {
    private static final int MAXVARS = 200;
    private static final int MAXUPVALUES = 60;
    private static final int MAXCCALLS = 200;

    // expression kinds
    static final int VVOID = 0, VNIL = 1, VTRUE = 2, VFALSE = 3, VK = 4, VKNUM = 5, VLOCAL = 6, VUPVAL = 7,
            VGLOBAL = 8, VINDEXED = 9, VJMP = 10, VRELOCABLE = 11, VNONRELOC = 12, VCALL = 13, VVARARG = 14;

    // operators
    private static final int OPR_ADD = 0, OPR_SUB = 1, OPR_MUL = 2, OPR_DIV = 3, OPR_MOD = 4, OPR_POW = 5,
            OPR_CONCAT = 6, OPR_NE = 7, OPR_EQ = 8, OPR_LT = 9, OPR_LE = 10, OPR_GT = 11, OPR_GE = 12,
            OPR_AND = 13, OPR_OR = 14, OPR_NOBINOPR = 15;
    private static final int OPR_MINUS = 0, OPR_NOT = 1, OPR_LEN = 2, OPR_NOUNOPR = 3;
    private static final int[][] PRIORITY = {
        {6, 6}, {6, 6}, {7, 7}, {7, 7}, {7, 7}, {10, 9}, {5, 4}, {3, 3}, {3, 3}, {3, 3}, {3, 3}, {3, 3}, {3, 3},
        {2, 2}, {1, 1},
    };
    private static final int UNARY_PRIORITY = 8;
    private static final Object NIL_KEY = new Object();

    static final class ExpDesc {
        int k;
        int info;
        int aux;
        double nval;
        int t;
        int f;

        void init(int kind, int i) {
            f = t = Op.NO_JUMP;
            k = kind;
            info = i;
        }

        void copyFrom(ExpDesc o) {
            k = o.k;
            info = o.info;
            aux = o.aux;
            nval = o.nval;
            t = o.t;
            f = o.f;
        }
    }

    static final class BlockCnt {
        BlockCnt previous;
        int breaklist;
        int nactvar;
        boolean upval;
        boolean isbreakable;
    }

    /** State of the function being compiled. */
    static final class FuncState {
        final Proto f = new Proto();
        final HashMap<Object, Integer> h = new HashMap<>();
        FuncState prev;
        BlockCnt bl;
        int pc;
        int lasttarget;
        int jpc;
        int freereg;
        int nk;
        int np;
        int nlocvars;
        int nactvar;
        final int[] upvalKind = new int[MAXUPVALUES];
        final int[] upvalInfo = new int[MAXUPVALUES];
        final int[] actvar = new int[MAXVARS];
        int[] code = new int[16];
        int[] lineinfo = new int[16];
        final ArrayList<Object> k = new ArrayList<>();
        final ArrayList<Proto> protos = new ArrayList<>();
        final ArrayList<LuaString> locNames = new ArrayList<>();
        final ArrayList<int[]> locRanges = new ArrayList<>();
        final ArrayList<LuaString> upvalNames = new ArrayList<>();
    }

    private final Lexer ls;
    private FuncState fs;

    private Parser(Lexer ls) {
        this.ls = ls;
    }

    /** Compiles a chunk; throws LuaError with Lua's syntax error message. */
    static Proto compile(byte[] source, LuaString chunkName) {
        Lexer lx = new Lexer(source, chunkName);
        Parser p = new Parser(lx);
        FuncState fs = new FuncState();
        p.openFunc(fs);
        fs.f.isVararg = Proto.VARARG_ISVARARG;
        lx.nextToken();
        p.chunk();
        p.check(TK_EOS);
        p.closeFunc();
        return fs.f;
    }

    // ---- errors and checks --------------------------------------------------------------------

    private LuaError errorExpected(int token) {
        return ls.syntaxError("'" + Lexer.token2str(token) + "' expected");
    }

    private void errorLimit(int limit, String what) {
        String msg = fs.f.linedefined == 0
                ? "main function has more than " + limit + " " + what
                : "function at line " + fs.f.linedefined + " has more than " + limit + " " + what;
        throw ls.lexError(msg, 0);
    }

    private void checkLimit(int v, int l, String m) {
        if (v > l) errorLimit(l, m);
    }

    private boolean testNext(int c) {
        if (ls.t.token == c) {
            ls.nextToken();
            return true;
        }
        return false;
    }

    private void check(int c) {
        if (ls.t.token != c) throw errorExpected(c);
    }

    private void checkNext(int c) {
        check(c);
        ls.nextToken();
    }

    private void checkCondition(boolean c, String msg) {
        if (!c) throw ls.syntaxError(msg);
    }

    private void checkMatch(int what, int who, int where) {
        if (!testNext(what)) {
            if (where == ls.linenumber) {
                throw errorExpected(what);
            } else {
                throw ls.syntaxError("'" + Lexer.token2str(what) + "' expected (to close '" + Lexer.token2str(who)
                        + "' at line " + where + ")");
            }
        }
    }

    private LuaString strCheckName() {
        check(TK_NAME);
        LuaString ts = ls.t.string;
        ls.nextToken();
        return ts;
    }

    private void codeString(ExpDesc e, LuaString s) {
        e.init(VK, stringK(s));
    }

    private void checkName(ExpDesc e) {
        codeString(e, strCheckName());
    }

    // ---- variables ------------------------------------------------------------------------------

    private int registerLocalVar(LuaString name) {
        fs.locNames.add(name);
        fs.locRanges.add(new int[] {0, 0});
        return fs.nlocvars++;
    }

    private void newLocalVar(LuaString name, int n) {
        checkLimit(fs.nactvar + n + 1, MAXVARS, "local variables");
        fs.actvar[fs.nactvar + n] = registerLocalVar(name);
    }

    private void newLocalVarLiteral(String name, int n) {
        newLocalVar(LuaString.valueOf(name), n);
    }

    private int[] getLocVar(int i) {
        return fs.locRanges.get(fs.actvar[i]);
    }

    private void adjustLocalVars(int nvars) {
        fs.nactvar += nvars;
        for (; nvars > 0; nvars--) getLocVar(fs.nactvar - nvars)[0] = fs.pc;
    }

    private void removeVars(int tolevel) {
        while (fs.nactvar > tolevel) getLocVar(--fs.nactvar)[1] = fs.pc;
    }

    private int indexUpvalue(FuncState f, LuaString name, ExpDesc v) {
        for (int i = 0; i < f.f.nups; i++) {
            if (f.upvalKind[i] == v.k && f.upvalInfo[i] == v.info) return i;
        }
        checkLimitFor(f, f.f.nups + 1, MAXUPVALUES, "upvalues");
        f.upvalNames.add(name);
        f.upvalKind[f.f.nups] = v.k;
        f.upvalInfo[f.f.nups] = v.info;
        return f.f.nups++;
    }

    private void checkLimitFor(FuncState f, int v, int l, String what) {
        if (v > l) {
            String msg = f.f.linedefined == 0
                    ? "main function has more than " + l + " " + what
                    : "function at line " + f.f.linedefined + " has more than " + l + " " + what;
            throw ls.lexError(msg, 0);
        }
    }

    private static int searchVar(FuncState f, LuaString n) {
        for (int i = f.nactvar - 1; i >= 0; i--) {
            if (n.equals(f.locNames.get(f.actvar[i]))) return i;
        }
        return -1;
    }

    private static void markUpval(FuncState f, int level) {
        BlockCnt bl = f.bl;
        while (bl != null && bl.nactvar > level) bl = bl.previous;
        if (bl != null) bl.upval = true;
    }

    private int singleVarAux(FuncState f, LuaString n, ExpDesc var, boolean base) {
        if (f == null) {
            var.init(VGLOBAL, Op.NO_REG);
            return VGLOBAL;
        }
        int v = searchVar(f, n);
        if (v >= 0) {
            var.init(VLOCAL, v);
            if (!base) markUpval(f, v);
            return VLOCAL;
        }
        if (singleVarAux(f.prev, n, var, false) == VGLOBAL) return VGLOBAL;
        var.info = indexUpvalue(f, n, var);
        var.k = VUPVAL;
        return VUPVAL;
    }

    private void singleVar(ExpDesc var) {
        LuaString varname = strCheckName();
        if (singleVarAux(fs, varname, var, true) == VGLOBAL) var.info = stringK(varname);
    }

    private void adjustAssign(int nvars, int nexps, ExpDesc e) {
        int extra = nvars - nexps;
        if (hasMultRet(e.k)) {
            extra++;
            if (extra < 0) extra = 0;
            setReturns(e, extra);
            if (extra > 1) reserveRegs(extra - 1);
        } else {
            if (e.k != VVOID) exp2nextreg(e);
            if (extra > 0) {
                int reg = fs.freereg;
                reserveRegs(extra);
                nil(reg, extra);
            }
        }
    }

    private void enterLevel() {
        if (++ls.nCcalls > MAXCCALLS) throw ls.lexError("chunk has too many syntax levels", 0);
    }

    private void leaveLevel() {
        ls.nCcalls--;
    }

    private void enterBlock(BlockCnt bl, boolean isbreakable) {
        bl.breaklist = Op.NO_JUMP;
        bl.isbreakable = isbreakable;
        bl.nactvar = fs.nactvar;
        bl.upval = false;
        bl.previous = fs.bl;
        fs.bl = bl;
    }

    private void leaveBlock() {
        BlockCnt bl = fs.bl;
        fs.bl = bl.previous;
        removeVars(bl.nactvar);
        if (bl.upval) codeABC(Op.CLOSE, bl.nactvar, 0, 0);
        fs.freereg = fs.nactvar;
        patchToHere(bl.breaklist);
    }

    private void pushClosure(FuncState func, ExpDesc v) {
        fs.protos.add(func.f);
        fs.np++;
        v.init(VRELOCABLE, codeABx(Op.CLOSURE, 0, fs.np - 1));
        for (int i = 0; i < func.f.nups; i++) {
            int o = func.upvalKind[i] == VLOCAL ? Op.MOVE : Op.GETUPVAL;
            codeABC(o, 0, func.upvalInfo[i], 0);
        }
    }

    private void openFunc(FuncState nfs) {
        nfs.prev = fs;
        fs = nfs;
        nfs.pc = 0;
        nfs.lasttarget = -1;
        nfs.jpc = Op.NO_JUMP;
        nfs.freereg = 0;
        nfs.nk = 0;
        nfs.np = 0;
        nfs.nlocvars = 0;
        nfs.nactvar = 0;
        nfs.bl = null;
        nfs.f.source = ls.source;
        nfs.f.maxstacksize = 2;
    }

    private void closeFunc() {
        FuncState f = fs;
        removeVars(0);
        ret(0, 0);
        Proto p = f.f;
        p.code = Arrays.copyOf(f.code, f.pc);
        p.lineinfo = Arrays.copyOf(f.lineinfo, f.pc);
        p.k = f.k.toArray();
        p.p = f.protos.toArray(new Proto[0]);
        int nl = f.locNames.size();
        p.locvarNames = f.locNames.toArray(new LuaString[0]);
        p.locvarStart = new int[nl];
        p.locvarEnd = new int[nl];
        for (int i = 0; i < nl; i++) {
            p.locvarStart[i] = f.locRanges.get(i)[0];
            p.locvarEnd[i] = f.locRanges.get(i)[1];
        }
        p.upvalueNames = f.upvalNames.toArray(new LuaString[0]);
        fs = f.prev;
    }

    // ---- grammar: expressions -------------------------------------------------------------------

    private void field(ExpDesc v) {
        ExpDesc key = new ExpDesc();
        exp2anyreg(v);
        ls.nextToken();
        checkName(key);
        indexed(v, key);
    }

    private void yindex(ExpDesc v) {
        ls.nextToken();
        expr(v);
        exp2val(v);
        checkNext(']');
    }

    /** Table constructor bookkeeping. */
    private static final class ConsControl {
        final ExpDesc v = new ExpDesc();
        ExpDesc t;
        int nh;
        int na;
        int tostore;
    }

    private void recField(ConsControl cc) {
        int reg = fs.freereg;
        ExpDesc key = new ExpDesc();
        ExpDesc val = new ExpDesc();
        if (ls.t.token == TK_NAME) {
            checkLimit(cc.nh, Integer.MAX_VALUE - 2, "items in a constructor");
            checkName(key);
        } else {
            yindex(key);
        }
        cc.nh++;
        checkNext('=');
        int rkkey = exp2RK(key);
        expr(val);
        codeABC(Op.SETTABLE, cc.t.info, rkkey, exp2RK(val));
        fs.freereg = reg;
    }

    private void closeListField(ConsControl cc) {
        if (cc.v.k == VVOID) return;
        exp2nextreg(cc.v);
        cc.v.k = VVOID;
        if (cc.tostore == Op.LFIELDS_PER_FLUSH) {
            setList(cc.t.info, cc.na, cc.tostore);
            cc.tostore = 0;
        }
    }

    private void lastListField(ConsControl cc) {
        if (cc.tostore == 0) return;
        if (hasMultRet(cc.v.k)) {
            setMultRet(cc.v);
            setList(cc.t.info, cc.na, Op.MULTRET);
            cc.na--;
        } else {
            if (cc.v.k != VVOID) exp2nextreg(cc.v);
            setList(cc.t.info, cc.na, cc.tostore);
        }
    }

    private void listField(ConsControl cc) {
        expr(cc.v);
        checkLimit(cc.na, Integer.MAX_VALUE - 2, "items in a constructor");
        cc.na++;
        cc.tostore++;
    }

    private void constructor(ExpDesc t) {
        int line = ls.linenumber;
        int pc = codeABC(Op.NEWTABLE, 0, 0, 0);
        ConsControl cc = new ConsControl();
        cc.t = t;
        t.init(VRELOCABLE, pc);
        cc.v.init(VVOID, 0);
        exp2nextreg(t);
        checkNext('{');
        do {
            if (ls.t.token == '}') break;
            closeListField(cc);
            switch (ls.t.token) {
                case TK_NAME:
                    ls.lookahead();
                    if (ls.lookahead.token != '=') listField(cc);
                    else recField(cc);
                    break;
                case '[':
                    recField(cc);
                    break;
                default:
                    listField(cc);
                    break;
            }
        } while (testNext(',') || testNext(';'));
        checkMatch('}', '{', line);
        lastListField(cc);
        fs.code[pc] = Op.setB(fs.code[pc], int2fb(cc.na));
        fs.code[pc] = Op.setC(fs.code[pc], int2fb(cc.nh));
    }

    static int int2fb(int x) {
        int e = 0;
        long ux = x & 0xFFFFFFFFL;
        while (ux >= 16) {
            ux = (ux + 1) >> 1;
            e++;
        }
        if (ux < 8) return (int) ux;
        return ((e + 1) << 3) | ((int) ux - 8);
    }

    static int fb2int(int x) {
        int e = (x >> 3) & 31;
        if (e == 0) return x;
        return ((x & 7) + 8) << (e - 1);
    }

    private void parList() {
        Proto f = fs.f;
        int nparams = 0;
        f.isVararg = 0;
        if (ls.t.token != ')') {
            do {
                switch (ls.t.token) {
                    case TK_NAME:
                        newLocalVar(strCheckName(), nparams++);
                        break;
                    case TK_DOTS:
                        ls.nextToken();
                        newLocalVarLiteral("arg", nparams++);
                        f.isVararg = Proto.VARARG_HASARG | Proto.VARARG_NEEDSARG;
                        f.isVararg |= Proto.VARARG_ISVARARG;
                        break;
                    default:
                        throw ls.syntaxError("<name> or '...' expected");
                }
            } while (f.isVararg == 0 && testNext(','));
        }
        adjustLocalVars(nparams);
        f.numparams = fs.nactvar - (f.isVararg & Proto.VARARG_HASARG);
        reserveRegs(fs.nactvar);
    }

    private void body(ExpDesc e, boolean needself, int line) {
        FuncState nfs = new FuncState();
        openFunc(nfs);
        nfs.f.linedefined = line;
        checkNext('(');
        if (needself) {
            newLocalVarLiteral("self", 0);
            adjustLocalVars(1);
        }
        parList();
        checkNext(')');
        chunk();
        nfs.f.lastlinedefined = ls.linenumber;
        checkMatch(TK_END, TK_FUNCTION, line);
        closeFunc();
        pushClosure(nfs, e);
    }

    private int explist1(ExpDesc v) {
        int n = 1;
        expr(v);
        while (testNext(',')) {
            exp2nextreg(v);
            expr(v);
            n++;
        }
        return n;
    }

    private void funcArgs(ExpDesc f) {
        ExpDesc args = new ExpDesc();
        int line = ls.linenumber;
        switch (ls.t.token) {
            case '(':
                if (line != ls.lastline) throw ls.syntaxError("ambiguous syntax (function call x new statement)");
                ls.nextToken();
                if (ls.t.token == ')') {
                    args.k = VVOID;
                } else {
                    explist1(args);
                    setMultRet(args);
                }
                checkMatch(')', '(', line);
                break;
            case '{':
                constructor(args);
                break;
            case TK_STRING:
                codeString(args, ls.t.string);
                ls.nextToken();
                break;
            default:
                throw ls.syntaxError("function arguments expected");
        }
        int base = f.info;
        int nparams;
        if (hasMultRet(args.k)) {
            nparams = Op.MULTRET;
        } else {
            if (args.k != VVOID) exp2nextreg(args);
            nparams = fs.freereg - (base + 1);
        }
        f.init(VCALL, codeABC(Op.CALL, base, nparams + 1, 2));
        fixLine(line);
        fs.freereg = base + 1;
    }

    private void prefixExp(ExpDesc v) {
        switch (ls.t.token) {
            case '(': {
                int line = ls.linenumber;
                ls.nextToken();
                expr(v);
                checkMatch(')', '(', line);
                dischargeVars(v);
                return;
            }
            case TK_NAME:
                singleVar(v);
                return;
            default:
                throw ls.syntaxError("unexpected symbol");
        }
    }

    private void primaryExp(ExpDesc v) {
        prefixExp(v);
        for (;;) {
            switch (ls.t.token) {
                case '.':
                    field(v);
                    break;
                case '[': {
                    ExpDesc key = new ExpDesc();
                    exp2anyreg(v);
                    yindex(key);
                    indexed(v, key);
                    break;
                }
                case ':': {
                    ExpDesc key = new ExpDesc();
                    ls.nextToken();
                    checkName(key);
                    self(v, key);
                    funcArgs(v);
                    break;
                }
                case '(':
                case TK_STRING:
                case '{':
                    exp2nextreg(v);
                    funcArgs(v);
                    break;
                default:
                    return;
            }
        }
    }

    private void simpleExp(ExpDesc v) {
        switch (ls.t.token) {
            case TK_NUMBER:
                v.init(VKNUM, 0);
                v.nval = ls.t.number;
                break;
            case TK_STRING:
                codeString(v, ls.t.string);
                break;
            case TK_NIL:
                v.init(VNIL, 0);
                break;
            case TK_TRUE:
                v.init(VTRUE, 0);
                break;
            case TK_FALSE:
                v.init(VFALSE, 0);
                break;
            case TK_DOTS:
                checkCondition(fs.f.isVararg != 0, "cannot use '...' outside a vararg function");
                fs.f.isVararg &= ~Proto.VARARG_NEEDSARG;
                v.init(VVARARG, codeABC(Op.VARARG, 0, 1, 0));
                break;
            case '{':
                constructor(v);
                return;
            case TK_FUNCTION:
                ls.nextToken();
                body(v, false, ls.linenumber);
                return;
            default:
                primaryExp(v);
                return;
        }
        ls.nextToken();
    }

    private static int getUnopr(int op) {
        switch (op) {
            case TK_NOT: return OPR_NOT;
            case '-': return OPR_MINUS;
            case '#': return OPR_LEN;
            default: return OPR_NOUNOPR;
        }
    }

    private static int getBinopr(int op) {
        switch (op) {
            case '+': return OPR_ADD;
            case '-': return OPR_SUB;
            case '*': return OPR_MUL;
            case '/': return OPR_DIV;
            case '%': return OPR_MOD;
            case '^': return OPR_POW;
            case TK_CONCAT: return OPR_CONCAT;
            case TK_NE: return OPR_NE;
            case TK_EQ: return OPR_EQ;
            case '<': return OPR_LT;
            case TK_LE: return OPR_LE;
            case '>': return OPR_GT;
            case TK_GE: return OPR_GE;
            case TK_AND: return OPR_AND;
            case TK_OR: return OPR_OR;
            default: return OPR_NOBINOPR;
        }
    }

    private int subExpr(ExpDesc v, int limit) {
        enterLevel();
        int uop = getUnopr(ls.t.token);
        if (uop != OPR_NOUNOPR) {
            ls.nextToken();
            subExpr(v, UNARY_PRIORITY);
            prefix(uop, v);
        } else {
            simpleExp(v);
        }
        int op = getBinopr(ls.t.token);
        while (op != OPR_NOBINOPR && PRIORITY[op][0] > limit) {
            ExpDesc v2 = new ExpDesc();
            ls.nextToken();
            infix(op, v);
            int nextop = subExpr(v2, PRIORITY[op][1]);
            posfix(op, v, v2);
            op = nextop;
        }
        leaveLevel();
        return op;
    }

    private void expr(ExpDesc v) {
        subExpr(v, 0);
    }

    // ---- grammar: statements ------------------------------------------------------------------

    private static boolean blockFollow(int token) {
        switch (token) {
            case TK_ELSE:
            case TK_ELSEIF:
            case TK_END:
            case TK_UNTIL:
            case TK_EOS:
                return true;
            default:
                return false;
        }
    }

    private void block() {
        BlockCnt bl = new BlockCnt();
        enterBlock(bl, false);
        chunk();
        leaveBlock();
    }

    private static final class LhsAssign {
        LhsAssign prev;
        final ExpDesc v = new ExpDesc();
    }

    private void checkConflict(LhsAssign lh, ExpDesc v) {
        int extra = fs.freereg;
        boolean conflict = false;
        for (; lh != null; lh = lh.prev) {
            if (lh.v.k == VINDEXED) {
                if (lh.v.info == v.info) {
                    conflict = true;
                    lh.v.info = extra;
                }
                if (lh.v.aux == v.info) {
                    conflict = true;
                    lh.v.aux = extra;
                }
            }
        }
        if (conflict) {
            codeABC(Op.MOVE, fs.freereg, v.info, 0);
            reserveRegs(1);
        }
    }

    private void assignment(LhsAssign lh, int nvars) {
        ExpDesc e = new ExpDesc();
        checkCondition(VLOCAL <= lh.v.k && lh.v.k <= VINDEXED, "syntax error");
        if (testNext(',')) {
            LhsAssign nv = new LhsAssign();
            nv.prev = lh;
            primaryExp(nv.v);
            if (nv.v.k == VLOCAL) checkConflict(lh, nv.v);
            checkLimit(nvars, MAXCCALLS - ls.nCcalls, "variables in assignment");
            assignment(nv, nvars + 1);
        } else {
            checkNext('=');
            int nexps = explist1(e);
            if (nexps != nvars) {
                adjustAssign(nvars, nexps, e);
                if (nexps > nvars) fs.freereg -= nexps - nvars;
            } else {
                setOneRet(e);
                storeVar(lh.v, e);
                return;
            }
        }
        e.init(VNONRELOC, fs.freereg - 1);
        storeVar(lh.v, e);
    }

    private int cond() {
        ExpDesc v = new ExpDesc();
        expr(v);
        if (v.k == VNIL) v.k = VFALSE;
        goIfTrue(v);
        return v.f;
    }

    private void breakStat() {
        BlockCnt bl = fs.bl;
        boolean upval = false;
        while (bl != null && !bl.isbreakable) {
            upval |= bl.upval;
            bl = bl.previous;
        }
        if (bl == null) throw ls.syntaxError("no loop to break");
        if (upval) codeABC(Op.CLOSE, bl.nactvar, 0, 0);
        bl.breaklist = concat(bl.breaklist, jump());
    }

    private void whileStat(int line) {
        BlockCnt bl = new BlockCnt();
        ls.nextToken();
        int whileinit = getLabel();
        int condexit = cond();
        enterBlock(bl, true);
        checkNext(TK_DO);
        block();
        patchList(jump(), whileinit);
        checkMatch(TK_END, TK_WHILE, line);
        leaveBlock();
        patchToHere(condexit);
    }

    private void repeatStat(int line) {
        int repeatInit = getLabel();
        BlockCnt bl1 = new BlockCnt();
        BlockCnt bl2 = new BlockCnt();
        enterBlock(bl1, true);
        enterBlock(bl2, false);
        ls.nextToken();
        chunk();
        checkMatch(TK_UNTIL, TK_REPEAT, line);
        int condexit = cond();
        if (!bl2.upval) {
            leaveBlock();
            patchList(condexit, repeatInit);
        } else {
            breakStat();
            patchToHere(condexit);
            leaveBlock();
            patchList(jump(), repeatInit);
        }
        leaveBlock();
    }

    private int exp1() {
        ExpDesc e = new ExpDesc();
        expr(e);
        int k = e.k;
        exp2nextreg(e);
        return k;
    }

    private void forBody(int base, int line, int nvars, boolean isnum) {
        BlockCnt bl = new BlockCnt();
        adjustLocalVars(3);
        checkNext(TK_DO);
        int prep = isnum ? codeAsBx(Op.FORPREP, base, Op.NO_JUMP) : jump();
        enterBlock(bl, false);
        adjustLocalVars(nvars);
        reserveRegs(nvars);
        block();
        leaveBlock();
        patchToHere(prep);
        int endfor = isnum ? codeAsBx(Op.FORLOOP, base, Op.NO_JUMP) : codeABC(Op.TFORLOOP, base, 0, nvars);
        fixLine(line);
        patchList(isnum ? endfor : jump(), prep + 1);
    }

    private void forNum(LuaString varname, int line) {
        int base = fs.freereg;
        newLocalVarLiteral("(for index)", 0);
        newLocalVarLiteral("(for limit)", 1);
        newLocalVarLiteral("(for step)", 2);
        newLocalVar(varname, 3);
        checkNext('=');
        exp1();
        checkNext(',');
        exp1();
        if (testNext(',')) {
            exp1();
        } else {
            codeABx(Op.LOADK, fs.freereg, numberK(1));
            reserveRegs(1);
        }
        forBody(base, line, 1, true);
    }

    private void forList(LuaString indexname) {
        ExpDesc e = new ExpDesc();
        int nvars = 0;
        int base = fs.freereg;
        newLocalVarLiteral("(for generator)", nvars++);
        newLocalVarLiteral("(for state)", nvars++);
        newLocalVarLiteral("(for control)", nvars++);
        newLocalVar(indexname, nvars++);
        while (testNext(',')) newLocalVar(strCheckName(), nvars++);
        checkNext(TK_IN);
        int line = ls.linenumber;
        adjustAssign(3, explist1(e), e);
        checkStack(3);
        forBody(base, line, nvars - 3, false);
    }

    private void forStat(int line) {
        BlockCnt bl = new BlockCnt();
        enterBlock(bl, true);
        ls.nextToken();
        LuaString varname = strCheckName();
        switch (ls.t.token) {
            case '=':
                forNum(varname, line);
                break;
            case ',':
            case TK_IN:
                forList(varname);
                break;
            default:
                throw ls.syntaxError("'=' or 'in' expected");
        }
        checkMatch(TK_END, TK_FOR, line);
        leaveBlock();
    }

    private int testThenBlock() {
        ls.nextToken();
        int condexit = cond();
        checkNext(TK_THEN);
        block();
        return condexit;
    }

    private void ifStat(int line) {
        int escapelist = Op.NO_JUMP;
        int flist = testThenBlock();
        while (ls.t.token == TK_ELSEIF) {
            escapelist = concat(escapelist, jump());
            patchToHere(flist);
            flist = testThenBlock();
        }
        if (ls.t.token == TK_ELSE) {
            escapelist = concat(escapelist, jump());
            patchToHere(flist);
            ls.nextToken();
            block();
        } else {
            escapelist = concat(escapelist, flist);
        }
        patchToHere(escapelist);
        checkMatch(TK_END, TK_IF, line);
    }

    private void localFunc() {
        ExpDesc v = new ExpDesc();
        ExpDesc b = new ExpDesc();
        newLocalVar(strCheckName(), 0);
        v.init(VLOCAL, fs.freereg);
        reserveRegs(1);
        adjustLocalVars(1);
        body(b, false, ls.linenumber);
        storeVar(v, b);
        getLocVar(fs.nactvar - 1)[0] = fs.pc;
    }

    private void localStat() {
        int nvars = 0;
        int nexps;
        ExpDesc e = new ExpDesc();
        do {
            newLocalVar(strCheckName(), nvars++);
        } while (testNext(','));
        if (testNext('=')) {
            nexps = explist1(e);
        } else {
            e.k = VVOID;
            nexps = 0;
        }
        adjustAssign(nvars, nexps, e);
        adjustLocalVars(nvars);
    }

    private boolean funcName(ExpDesc v) {
        boolean needself = false;
        singleVar(v);
        while (ls.t.token == '.') field(v);
        if (ls.t.token == ':') {
            needself = true;
            field(v);
        }
        return needself;
    }

    private void funcStat(int line) {
        ExpDesc v = new ExpDesc();
        ExpDesc b = new ExpDesc();
        ls.nextToken();
        boolean needself = funcName(v);
        body(b, needself, line);
        storeVar(v, b);
        fixLine(line);
    }

    private void exprStat() {
        LhsAssign v = new LhsAssign();
        primaryExp(v.v);
        if (v.v.k == VCALL) {
            fs.code[v.v.info] = Op.setC(fs.code[v.v.info], 1);
        } else {
            v.prev = null;
            assignment(v, 1);
        }
    }

    private void retStat() {
        ExpDesc e = new ExpDesc();
        int first;
        int nret;
        ls.nextToken();
        if (blockFollow(ls.t.token) || ls.t.token == ';') {
            first = nret = 0;
        } else {
            nret = explist1(e);
            if (hasMultRet(e.k)) {
                setMultRet(e);
                if (e.k == VCALL && nret == 1) {
                    fs.code[e.info] = Op.setOp(fs.code[e.info], Op.TAILCALL);
                }
                first = fs.nactvar;
                nret = Op.MULTRET;
            } else {
                if (nret == 1) {
                    first = exp2anyreg(e);
                } else {
                    exp2nextreg(e);
                    first = fs.nactvar;
                }
            }
        }
        ret(first, nret);
    }

    private boolean statement() {
        int line = ls.linenumber;
        switch (ls.t.token) {
            case TK_IF:
                ifStat(line);
                return false;
            case TK_WHILE:
                whileStat(line);
                return false;
            case TK_DO:
                ls.nextToken();
                block();
                checkMatch(TK_END, TK_DO, line);
                return false;
            case TK_FOR:
                forStat(line);
                return false;
            case TK_REPEAT:
                repeatStat(line);
                return false;
            case TK_FUNCTION:
                funcStat(line);
                return false;
            case TK_LOCAL:
                ls.nextToken();
                if (testNext(TK_FUNCTION)) localFunc();
                else localStat();
                return false;
            case TK_RETURN:
                retStat();
                return true;
            case TK_BREAK:
                ls.nextToken();
                breakStat();
                return true;
            default:
                exprStat();
                return false;
        }
    }

    private void chunk() {
        boolean islast = false;
        enterLevel();
        while (!islast && !blockFollow(ls.t.token)) {
            islast = statement();
            testNext(';');
            fs.freereg = fs.nactvar;
        }
        leaveLevel();
    }

    // ---- code generator (lcode.c) -------------------------------------------------------------

    private static boolean hasMultRet(int k) {
        return k == VCALL || k == VVARARG;
    }

    private static boolean hasJumps(ExpDesc e) {
        return e.t != e.f;
    }

    private static boolean isNumeral(ExpDesc e) {
        return e.k == VKNUM && e.t == Op.NO_JUMP && e.f == Op.NO_JUMP;
    }

    private void nil(int from, int n) {
        if (fs.pc > fs.lasttarget) {
            if (fs.pc == 0) {
                if (from >= fs.nactvar) return;
            } else {
                int previous = fs.code[fs.pc - 1];
                if (Op.op(previous) == Op.LOADNIL) {
                    int pfrom = Op.a(previous);
                    int pto = Op.b(previous);
                    if (pfrom <= from && from <= pto + 1) {
                        if (from + n - 1 > pto) fs.code[fs.pc - 1] = Op.setB(previous, from + n - 1);
                        return;
                    }
                }
            }
        }
        codeABC(Op.LOADNIL, from, from + n - 1, 0);
    }

    private int jump() {
        int jpc = fs.jpc;
        fs.jpc = Op.NO_JUMP;
        int j = codeAsBx(Op.JMP, 0, Op.NO_JUMP);
        return concat(j, jpc);
    }

    private void ret(int first, int nret) {
        codeABC(Op.RETURN, first, nret + 1, 0);
    }

    private int condJump(int op, int a, int b, int c) {
        codeABC(op, a, b, c);
        return jump();
    }

    private void fixJump(int pc, int dest) {
        int offset = dest - (pc + 1);
        if (Math.abs(offset) > Op.MAXARG_sBx) throw ls.syntaxError("control structure too long");
        fs.code[pc] = Op.setSbx(fs.code[pc], offset);
    }

    private int getLabel() {
        fs.lasttarget = fs.pc;
        return fs.pc;
    }

    private int getJump(int pc) {
        int offset = Op.sbx(fs.code[pc]);
        if (offset == Op.NO_JUMP) return Op.NO_JUMP;
        return (pc + 1) + offset;
    }

    private int getJumpControl(int pc) {
        if (pc >= 1 && Op.testT(Op.op(fs.code[pc - 1]))) return pc - 1;
        return pc;
    }

    private boolean needValue(int list) {
        for (; list != Op.NO_JUMP; list = getJump(list)) {
            int i = fs.code[getJumpControl(list)];
            if (Op.op(i) != Op.TESTSET) return true;
        }
        return false;
    }

    private boolean patchTestReg(int node, int reg) {
        int at = getJumpControl(node);
        int i = fs.code[at];
        if (Op.op(i) != Op.TESTSET) return false;
        if (reg != Op.NO_REG && reg != Op.b(i)) fs.code[at] = Op.setA(i, reg);
        else fs.code[at] = Op.abc(Op.TEST, Op.b(i), 0, Op.c(i));
        return true;
    }

    private void removeValues(int list) {
        for (; list != Op.NO_JUMP; list = getJump(list)) patchTestReg(list, Op.NO_REG);
    }

    private void patchListAux(int list, int vtarget, int reg, int dtarget) {
        while (list != Op.NO_JUMP) {
            int next = getJump(list);
            if (patchTestReg(list, reg)) fixJump(list, vtarget);
            else fixJump(list, dtarget);
            list = next;
        }
    }

    private void dischargeJpc() {
        patchListAux(fs.jpc, fs.pc, Op.NO_REG, fs.pc);
        fs.jpc = Op.NO_JUMP;
    }

    private void patchList(int list, int target) {
        if (target == fs.pc) patchToHere(list);
        else patchListAux(list, target, Op.NO_REG, target);
    }

    private void patchToHere(int list) {
        getLabel();
        fs.jpc = concat(fs.jpc, list);
    }

    /** Appends list l2 to l1 and returns the combined list. */
    private int concat(int l1, int l2) {
        if (l2 == Op.NO_JUMP) return l1;
        if (l1 == Op.NO_JUMP) return l2;
        int list = l1;
        int next;
        while ((next = getJump(list)) != Op.NO_JUMP) list = next;
        fixJump(list, l2);
        return l1;
    }

    private void checkStack(int n) {
        int newstack = fs.freereg + n;
        if (newstack > fs.f.maxstacksize) {
            if (newstack >= Op.MAXSTACK) throw ls.syntaxError("function or expression too complex");
            fs.f.maxstacksize = newstack;
        }
    }

    private void reserveRegs(int n) {
        checkStack(n);
        fs.freereg += n;
    }

    private void freeReg(int reg) {
        if (!Op.isK(reg) && reg >= fs.nactvar) fs.freereg--;
    }

    private void freeExp(ExpDesc e) {
        if (e.k == VNONRELOC) freeReg(e.info);
    }

    private int addK(Object key, Object v) {
        Integer idx = fs.h.get(key);
        if (idx != null) return idx;
        if (fs.nk >= Op.MAXARG_Bx) throw ls.lexError("constant table overflow", 0);
        fs.h.put(key, fs.nk);
        fs.k.add(v);
        return fs.nk++;
    }

    private int stringK(LuaString s) {
        return addK(s, s);
    }

    private int numberK(double r) {
        Double key = r == 0 ? 0.0 : r;
        return addK(key, LuaValues.num(r));
    }

    private int boolK(boolean b) {
        return addK(LuaValues.bool(b), LuaValues.bool(b));
    }

    private int nilK() {
        return addK(NIL_KEY, null);
    }

    private void setReturns(ExpDesc e, int nresults) {
        if (e.k == VCALL) {
            fs.code[e.info] = Op.setC(fs.code[e.info], nresults + 1);
        } else if (e.k == VVARARG) {
            fs.code[e.info] = Op.setB(fs.code[e.info], nresults + 1);
            fs.code[e.info] = Op.setA(fs.code[e.info], fs.freereg);
            reserveRegs(1);
        }
    }

    private void setMultRet(ExpDesc e) {
        setReturns(e, Op.MULTRET);
    }

    private void setOneRet(ExpDesc e) {
        if (e.k == VCALL) {
            e.k = VNONRELOC;
            e.info = Op.a(fs.code[e.info]);
        } else if (e.k == VVARARG) {
            fs.code[e.info] = Op.setB(fs.code[e.info], 2);
            e.k = VRELOCABLE;
        }
    }

    private void dischargeVars(ExpDesc e) {
        switch (e.k) {
            case VLOCAL:
                e.k = VNONRELOC;
                break;
            case VUPVAL:
                e.info = codeABC(Op.GETUPVAL, 0, e.info, 0);
                e.k = VRELOCABLE;
                break;
            case VGLOBAL:
                e.info = codeABx(Op.GETGLOBAL, 0, e.info);
                e.k = VRELOCABLE;
                break;
            case VINDEXED:
                freeReg(e.aux);
                freeReg(e.info);
                e.info = codeABC(Op.GETTABLE, 0, e.info, e.aux);
                e.k = VRELOCABLE;
                break;
            case VVARARG:
            case VCALL:
                setOneRet(e);
                break;
            default:
                break;
        }
    }

    private int codeLabel(int a, int b, int jump) {
        getLabel();
        return codeABC(Op.LOADBOOL, a, b, jump);
    }

    private void discharge2reg(ExpDesc e, int reg) {
        dischargeVars(e);
        switch (e.k) {
            case VNIL:
                nil(reg, 1);
                break;
            case VFALSE:
            case VTRUE:
                codeABC(Op.LOADBOOL, reg, e.k == VTRUE ? 1 : 0, 0);
                break;
            case VK:
                codeABx(Op.LOADK, reg, e.info);
                break;
            case VKNUM:
                codeABx(Op.LOADK, reg, numberK(e.nval));
                break;
            case VRELOCABLE:
                fs.code[e.info] = Op.setA(fs.code[e.info], reg);
                break;
            case VNONRELOC:
                if (reg != e.info) codeABC(Op.MOVE, reg, e.info, 0);
                break;
            default:
                return;
        }
        e.info = reg;
        e.k = VNONRELOC;
    }

    private void discharge2anyreg(ExpDesc e) {
        if (e.k != VNONRELOC) {
            reserveRegs(1);
            discharge2reg(e, fs.freereg - 1);
        }
    }

    private void exp2reg(ExpDesc e, int reg) {
        discharge2reg(e, reg);
        if (e.k == VJMP) e.t = concat(e.t, e.info);
        if (hasJumps(e)) {
            int pf = Op.NO_JUMP;
            int pt = Op.NO_JUMP;
            if (needValue(e.t) || needValue(e.f)) {
                int fj = e.k == VJMP ? Op.NO_JUMP : jump();
                pf = codeLabel(reg, 0, 1);
                pt = codeLabel(reg, 1, 0);
                patchToHere(fj);
            }
            int fin = getLabel();
            patchListAux(e.f, fin, reg, pf);
            patchListAux(e.t, fin, reg, pt);
        }
        e.f = e.t = Op.NO_JUMP;
        e.info = reg;
        e.k = VNONRELOC;
    }

    private void exp2nextreg(ExpDesc e) {
        dischargeVars(e);
        freeExp(e);
        reserveRegs(1);
        exp2reg(e, fs.freereg - 1);
    }

    private int exp2anyreg(ExpDesc e) {
        dischargeVars(e);
        if (e.k == VNONRELOC) {
            if (!hasJumps(e)) return e.info;
            if (e.info >= fs.nactvar) {
                exp2reg(e, e.info);
                return e.info;
            }
        }
        exp2nextreg(e);
        return e.info;
    }

    private void exp2val(ExpDesc e) {
        if (hasJumps(e)) exp2anyreg(e);
        else dischargeVars(e);
    }

    private int exp2RK(ExpDesc e) {
        exp2val(e);
        switch (e.k) {
            case VKNUM:
            case VTRUE:
            case VFALSE:
            case VNIL:
                if (fs.nk <= Op.MAXINDEXRK) {
                    e.info = e.k == VNIL ? nilK() : e.k == VKNUM ? numberK(e.nval) : boolK(e.k == VTRUE);
                    e.k = VK;
                    return Op.rkAsK(e.info);
                }
                break;
            case VK:
                if (e.info <= Op.MAXINDEXRK) return Op.rkAsK(e.info);
                break;
            default:
                break;
        }
        return exp2anyreg(e);
    }

    private void storeVar(ExpDesc var, ExpDesc ex) {
        switch (var.k) {
            case VLOCAL:
                freeExp(ex);
                exp2reg(ex, var.info);
                return;
            case VUPVAL: {
                int e = exp2anyreg(ex);
                codeABC(Op.SETUPVAL, e, var.info, 0);
                break;
            }
            case VGLOBAL: {
                int e = exp2anyreg(ex);
                codeABx(Op.SETGLOBAL, e, var.info);
                break;
            }
            case VINDEXED: {
                int e = exp2RK(ex);
                codeABC(Op.SETTABLE, var.info, var.aux, e);
                break;
            }
            default:
                break;
        }
        freeExp(ex);
    }

    private void self(ExpDesc e, ExpDesc key) {
        exp2anyreg(e);
        freeExp(e);
        int func = fs.freereg;
        reserveRegs(2);
        codeABC(Op.SELF, func, e.info, exp2RK(key));
        freeExp(key);
        e.info = func;
        e.k = VNONRELOC;
    }

    private void invertJump(ExpDesc e) {
        int at = getJumpControl(e.info);
        int i = fs.code[at];
        fs.code[at] = Op.setA(i, Op.a(i) == 0 ? 1 : 0);
    }

    private int jumpOnCond(ExpDesc e, int cond) {
        if (e.k == VRELOCABLE) {
            int ie = fs.code[e.info];
            if (Op.op(ie) == Op.NOT) {
                fs.pc--;
                return condJump(Op.TEST, Op.b(ie), 0, cond == 0 ? 1 : 0);
            }
        }
        discharge2anyreg(e);
        freeExp(e);
        return condJump(Op.TESTSET, Op.NO_REG, e.info, cond);
    }

    private void goIfTrue(ExpDesc e) {
        int pc;
        dischargeVars(e);
        switch (e.k) {
            case VK:
            case VKNUM:
            case VTRUE:
                pc = Op.NO_JUMP;
                break;
            case VJMP:
                invertJump(e);
                pc = e.info;
                break;
            default:
                pc = jumpOnCond(e, 0);
                break;
        }
        e.f = concat(e.f, pc);
        patchToHere(e.t);
        e.t = Op.NO_JUMP;
    }

    private void goIfFalse(ExpDesc e) {
        int pc;
        dischargeVars(e);
        switch (e.k) {
            case VNIL:
            case VFALSE:
                pc = Op.NO_JUMP;
                break;
            case VJMP:
                pc = e.info;
                break;
            default:
                pc = jumpOnCond(e, 1);
                break;
        }
        e.t = concat(e.t, pc);
        patchToHere(e.f);
        e.f = Op.NO_JUMP;
    }

    private void codeNot(ExpDesc e) {
        dischargeVars(e);
        switch (e.k) {
            case VNIL:
            case VFALSE:
                e.k = VTRUE;
                break;
            case VK:
            case VKNUM:
            case VTRUE:
                e.k = VFALSE;
                break;
            case VJMP:
                invertJump(e);
                break;
            case VRELOCABLE:
            case VNONRELOC:
                discharge2anyreg(e);
                freeExp(e);
                e.info = codeABC(Op.NOT, 0, e.info, 0);
                e.k = VRELOCABLE;
                break;
            default:
                throw new IllegalStateException("codeNot");
        }
        int temp = e.f;
        e.f = e.t;
        e.t = temp;
        removeValues(e.f);
        removeValues(e.t);
    }

    private void indexed(ExpDesc t, ExpDesc k) {
        t.aux = exp2RK(k);
        t.k = VINDEXED;
    }

    private static boolean constFolding(int op, ExpDesc e1, ExpDesc e2) {
        if (!isNumeral(e1) || !isNumeral(e2)) return false;
        double v1 = e1.nval;
        double v2 = e2.nval;
        double r;
        switch (op) {
            case Op.ADD: r = v1 + v2; break;
            case Op.SUB: r = v1 - v2; break;
            case Op.MUL: r = v1 * v2; break;
            case Op.DIV:
                if (v2 == 0) return false;
                r = v1 / v2;
                break;
            case Op.MOD:
                if (v2 == 0) return false;
                r = v1 - Math.floor(v1 / v2) * v2;
                break;
            case Op.POW: r = Interp.pow(v1, v2); break;
            case Op.UNM: r = -v1; break;
            case Op.LEN: return false;
            default: return false;
        }
        if (Double.isNaN(r)) return false;
        e1.nval = r;
        return true;
    }

    private void codeArith(int op, ExpDesc e1, ExpDesc e2) {
        if (constFolding(op, e1, e2)) return;
        int o2 = (op != Op.UNM && op != Op.LEN) ? exp2RK(e2) : 0;
        int o1 = exp2RK(e1);
        if (o1 > o2) {
            freeExp(e1);
            freeExp(e2);
        } else {
            freeExp(e2);
            freeExp(e1);
        }
        e1.info = codeABC(op, 0, o1, o2);
        e1.k = VRELOCABLE;
    }

    private void codeComp(int op, int cond, ExpDesc e1, ExpDesc e2) {
        int o1 = exp2RK(e1);
        int o2 = exp2RK(e2);
        freeExp(e2);
        freeExp(e1);
        if (cond == 0 && op != Op.EQ) {
            int temp = o1;
            o1 = o2;
            o2 = temp;
            cond = 1;
        }
        e1.info = condJump(op, cond, o1, o2);
        e1.k = VJMP;
    }

    private void prefix(int op, ExpDesc e) {
        ExpDesc e2 = new ExpDesc();
        e2.t = e2.f = Op.NO_JUMP;
        e2.k = VKNUM;
        e2.nval = 0;
        switch (op) {
            case OPR_MINUS:
                if (!isNumeral(e)) exp2anyreg(e);
                codeArith(Op.UNM, e, e2);
                break;
            case OPR_NOT:
                codeNot(e);
                break;
            case OPR_LEN:
                exp2anyreg(e);
                codeArith(Op.LEN, e, e2);
                break;
            default:
                throw new IllegalStateException("prefix");
        }
    }

    private void infix(int op, ExpDesc v) {
        switch (op) {
            case OPR_AND:
                goIfTrue(v);
                break;
            case OPR_OR:
                goIfFalse(v);
                break;
            case OPR_CONCAT:
                exp2nextreg(v);
                break;
            case OPR_ADD:
            case OPR_SUB:
            case OPR_MUL:
            case OPR_DIV:
            case OPR_MOD:
            case OPR_POW:
                if (!isNumeral(v)) exp2RK(v);
                break;
            default:
                exp2RK(v);
                break;
        }
    }

    private void posfix(int op, ExpDesc e1, ExpDesc e2) {
        switch (op) {
            case OPR_AND:
                dischargeVars(e2);
                e2.f = concat(e2.f, e1.f);
                e1.copyFrom(e2);
                break;
            case OPR_OR:
                dischargeVars(e2);
                e2.t = concat(e2.t, e1.t);
                e1.copyFrom(e2);
                break;
            case OPR_CONCAT:
                exp2val(e2);
                if (e2.k == VRELOCABLE && Op.op(fs.code[e2.info]) == Op.CONCAT) {
                    freeExp(e1);
                    fs.code[e2.info] = Op.setB(fs.code[e2.info], e1.info);
                    e1.k = VRELOCABLE;
                    e1.info = e2.info;
                } else {
                    exp2nextreg(e2);
                    codeArith(Op.CONCAT, e1, e2);
                }
                break;
            case OPR_ADD: codeArith(Op.ADD, e1, e2); break;
            case OPR_SUB: codeArith(Op.SUB, e1, e2); break;
            case OPR_MUL: codeArith(Op.MUL, e1, e2); break;
            case OPR_DIV: codeArith(Op.DIV, e1, e2); break;
            case OPR_MOD: codeArith(Op.MOD, e1, e2); break;
            case OPR_POW: codeArith(Op.POW, e1, e2); break;
            case OPR_EQ: codeComp(Op.EQ, 1, e1, e2); break;
            case OPR_NE: codeComp(Op.EQ, 0, e1, e2); break;
            case OPR_LT: codeComp(Op.LT, 1, e1, e2); break;
            case OPR_LE: codeComp(Op.LE, 1, e1, e2); break;
            case OPR_GT: codeComp(Op.LT, 0, e1, e2); break;
            case OPR_GE: codeComp(Op.LE, 0, e1, e2); break;
            default:
                throw new IllegalStateException("posfix");
        }
    }

    private void fixLine(int line) {
        fs.lineinfo[fs.pc - 1] = line;
    }

    private int code(int i, int line) {
        dischargeJpc();
        if (fs.pc == fs.code.length) {
            fs.code = Arrays.copyOf(fs.code, fs.pc * 2);
            fs.lineinfo = Arrays.copyOf(fs.lineinfo, fs.pc * 2);
        }
        fs.code[fs.pc] = i;
        fs.lineinfo[fs.pc] = line;
        return fs.pc++;
    }

    private int codeABC(int o, int a, int b, int c) {
        return code(Op.abc(o, a, b, c), ls.lastline);
    }

    private int codeABx(int o, int a, int bc) {
        return code(Op.abx(o, a, bc), ls.lastline);
    }

    private int codeAsBx(int o, int a, int sbx) {
        return codeABx(o, a, sbx + Op.MAXARG_sBx);
    }

    private void setList(int base, int nelems, int tostore) {
        int c = (nelems - 1) / Op.LFIELDS_PER_FLUSH + 1;
        int b = tostore == Op.MULTRET ? 0 : tostore;
        if (c <= Op.MAXARG_C) {
            codeABC(Op.SETLIST, base, b, c);
        } else {
            codeABC(Op.SETLIST, base, b, 0);
            code(c, ls.lastline);
        }
        fs.freereg = base + 1;
    }
}
