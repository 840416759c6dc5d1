#!/usr/bin/env bash
# Starts Lizzie 0.7.4 (Debian's liblizzie-java) under Xvfb with `alphago gtp` as its
# engine, waits until Lizzie draws the engine's analysis, and saves a screenshot.
# Run by hand (not in CI); it needs apt-get (root or sudo) the first time.
#
#   scripts/lizzie_screenshot.sh                # writes docs/gui/lizzie.png
#
# Settings (environment):
#   SHOT=path.png      where the screenshot goes       (default: docs/gui/lizzie.png)
#   BOARD_SIZE=9|19    Lizzie's ui.board-size          (default: 9, the shipped network)
#   ENGINE="cmd ..."   the engine command line          (default: .venv/bin/alphago gtp
#                                                         --simulations 400 --threads 1)
#   ANALYSE_S=30       seconds of analysis shown before the screenshot
#   WORK=dir           scratch folder: Lizzie's home, the GTP log (default: a new /tmp dir)
#   XDISPLAY=:57       the Xvfb display number
#
# Lizzie reads ~/.config/leela-zero/lizzie-config.txt. So that a user's own Lizzie setup is
# never touched, Java's home (user.home) is pointed at $WORK/home, and the config this script
# writes is $WORK/home/.config/leela-zero/lizzie-config.txt. Between Lizzie and the engine sits
# a small logging wrapper: $WORK/gtp.log has every line Lizzie sent ("> ") and every line the
# engine wrote to stdout ("< ") or stderr ("! "), with seconds since start; $WORK/commands.txt
# is just the commands, in order.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
SHOT=${SHOT:-$REPO/docs/gui/lizzie.png}
BOARD_SIZE=${BOARD_SIZE:-9}
ENGINE=${ENGINE:-$REPO/.venv/bin/alphago gtp --simulations 400 --threads 1}
ANALYSE_S=${ANALYSE_S:-30}
XDISPLAY=${XDISPLAY:-:57}
WORK=${WORK:-$(mktemp -d /tmp/lizzie-shot.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
JAR=/usr/share/java/lizzie.jar

# --- what it needs -----------------------------------------------------------------------
need=()
[ -f "$JAR" ] || need+=(liblizzie-java)
command -v Xvfb >/dev/null || need+=(xvfb)
command -v openbox >/dev/null || need+=(openbox)
command -v xwd >/dev/null || need+=(x11-apps)           # xwd: the screenshot
command -v xdotool >/dev/null || need+=(xdotool)        # window size, mouse wheel
command -v xwdtopnm >/dev/null || need+=(netpbm)        # xwd -> png, scaled, fewer colours
command -v python3 >/dev/null || need+=(python3)        # the logging wrapper
if [ ${#need[@]} -gt 0 ]; then
    echo "installing: ${need[*]}"
    sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${need[@]}"
fi

# --- the logging wrapper between Lizzie and the engine -----------------------------------
cat > "$WORK/gtp_log.py" <<'EOF'
"""gtp_log.py LOG PIDFILE -- ENGINE ARGS...: pass stdin/stdout/stderr through, logging each line."""
import subprocess, sys, threading, time

log_path, pid_path = sys.argv[1], sys.argv[2]
cmd = sys.argv[sys.argv.index("--") + 1:]
log = open(log_path, "a", buffering=1, encoding="utf-8", errors="replace")
start = time.monotonic()
lock = threading.Lock()


def note(tag, raw):
    text = raw.decode("utf-8", "replace").rstrip("\r\n")
    with lock:
        log.write(f"{time.monotonic() - start:9.3f} {tag} {text}\n")


with open(pid_path, "w") as f:
    f.write(f"{__import__('os').getpid()}\n")
note("#", " ".join(cmd).encode())
engine = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def pump(src, dst, tag, close=False):
    for line in iter(src.readline, b""):
        note(tag, line)
        try:
            dst.write(line)
            dst.flush()
        except (BrokenPipeError, ValueError):
            break
    if close:
        try:
            dst.close()
        except BrokenPipeError:
            pass


threads = [
    threading.Thread(target=pump, args=(sys.stdin.buffer, engine.stdin, ">", True), daemon=True),
    threading.Thread(target=pump, args=(engine.stdout, sys.stdout.buffer, "<")),
    threading.Thread(target=pump, args=(engine.stderr, sys.stderr.buffer, "!")),
]
for t in threads:
    t.start()
code = engine.wait()
for t in threads[1:]:
    t.join()
note("#", f"engine exited with {code}".encode())
sys.exit(code)
EOF

# --- Lizzie's config ----------------------------------------------------------------------
LHOME=$WORK/home
mkdir -p "$LHOME/.config/leela-zero" "$LHOME/.local/share/leela-zero"
ENGINE_COMMAND="python3 $WORK/gtp_log.py $WORK/gtp.log $WORK/engine.pid -- $ENGINE"
ENGINE_COMMAND="$ENGINE_COMMAND" BOARD_SIZE="$BOARD_SIZE" python3 - "$LHOME/.config/leela-zero/lizzie-config.txt" <<'EOF'
# Lizzie 0.7.4's config is JSON with a "leelaz" part (the engine) and a "ui" part. These are
# the values Lizzie 0.7.4 writes itself on first start, with these changed: engine-command,
# board-size, show-move-number (on) and min-playout-ratio-for-stats (0.1 -> 0.02, so more
# candidates get their winrate drawn). The whole file is written, not just these keys.
import json, os, sys

config = {
    "leelaz": {
        # Lizzie splits this at spaces (quotes group), replaces %network-file and
        # %leelaz-share, and appends nothing; it starts the process in its own working
        # directory and reads stderr mixed into stdout.
        "engine-command": os.environ["ENGINE_COMMAND"],
        "network-file": "%leelaz-share/best-network",
        "_comment": "note, network-file is obselete in Lizzie 0.7+, ignore network-file, kept for compatibility",
        "max-analyze-time-minutes": 99999,
        "analyze-update-interval-centisec": 10,
        "max-game-thinking-time-seconds": 2,
        "engine-start-location": ".",
        "avoid-keep-variations": 30,
        "print-comms": False,
        "show-lcb-winrate": False,
    },
    "ui": {
        "board-size": int(os.environ["BOARD_SIZE"]),
        "comment-font-size": 0, "board-color": [217, 152, 77], "shadow-size": 100,
        "show-winrate": True, "autosave-interval-seconds": -1, "append-winrate-to-comment": False,
        "fancy-board": True, "show-captured": True, "replay-branch-interval-seconds": 1,
        "panel-ui": False, "katago-estimate-blend": True, "weighted-blunder-bar-height": False,
        "katago-estimate-mode": "small", "win-rate-always-black": False, "show-border": False,
        "show-move-number": True, "winrate-stroke-width": 3, "show-next-moves": True,
        "show-comment": True, "show-leelaz-variation": True, "theme": "default",
        "min-playout-ratio-for-stats": 0.02, "fancy-stones": True, "resume-previous-game": False,
        "new-move-number-in-branch": True, "shadows-enabled": True,
        "show-katago-boardscoremean": False, "show-katago-estimate-onsubboard": True,
        "show-variation-graph": True, "show-dynamic-komi": True,
        "gtp-console-style": "body {background:#000000; color:#d0d0d0; font-family:Consolas, Menlo, Monaco, 'Ubuntu Mono', monospace; margin:4px;} .command {color:#ffffff;font-weight:bold;} .winrate {color:#ffffff;font-weight:bold;} .coord {color:#ffffff;font-weight:bold;}",
        "katago-scoremean-alwaysblack": False, "katago-notshow-winrate": False,
        "minimum-blunder-bar-width": 3, "large-winrate": False, "show-blunder-bar": False,
        "only-last-move-number": 0, "confirm-exit": False, "show-status": True,
        "handicap-instead-of-winrate": False, "large-subboard": False,
        "dynamic-winrate-graph-width": False, "show-katago-estimate-onmainboard": True,
        "show-subboard": True, "show-katago-scoremean": True, "show-katago-estimate": False,
        "show-best-moves": True,
    },
}
with open(sys.argv[1], "w") as f:
    json.dump(config, f, indent=2)
EOF

# A short opening for Lizzie to load (its first argument is an SGF file), so the picture is
# of a position, not an empty board.
if [ "$BOARD_SIZE" = 9 ]; then
    echo '(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[gc];B[cg];W[fg])' > "$WORK/opening.sgf"
else
    echo "(;GM[1]FF[4]SZ[$BOARD_SIZE]KM[7.5];B[pd];W[dp];B[pp];W[dd])" > "$WORK/opening.sgf"
fi

# --- X, window manager, Lizzie --------------------------------------------------------------
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$WORK/engine.pid" ] && kill "$(cat "$WORK/engine.pid")" 2>/dev/null || true
}
trap cleanup EXIT

Xvfb "$XDISPLAY" -screen 0 1280x800x24 -nolisten tcp >"$WORK/xvfb.log" 2>&1 &
pids+=($!)
export DISPLAY=$XDISPLAY
for _ in $(seq 50); do xdotool getdisplaygeometry >/dev/null 2>&1 && break; sleep 0.2; done
openbox >"$WORK/openbox.log" 2>&1 &
pids+=($!)
sleep 1
# The engine is started by Lizzie in Lizzie's working directory.
(cd "$WORK" && exec java -Duser.home="$LHOME" -jar "$JAR" "$WORK/opening.sgf") >"$WORK/lizzie.log" 2>&1 &
lizzie=$!
pids=("$lizzie" "${pids[@]}")
echo "Lizzie pid $lizzie; log: $WORK/gtp.log"

win=
for _ in $(seq 60); do
    win=$(xdotool search --name '^Lizzie' 2>/dev/null | head -n1) && [ -n "$win" ] && break
    sleep 1
done
[ -n "$win" ] || { echo "no Lizzie window; see $WORK/lizzie.log" >&2; exit 1; }
xdotool windowmove "$win" 0 0 windowsize "$win" 1280 800 || true

# Lizzie sends lz-analyze by itself once the engine has answered name and version; wait for
# the engine's first analysis line (importing torch and loading the network take seconds).
analysing() { grep -q '^ *[0-9.]* < info move' "$WORK/gtp.log" 2>/dev/null; }
for _ in $(seq 180); do analysing && break; sleep 1; done
analysing || echo "no analysis seen in $WORK/gtp.log; taking the screenshot anyway" >&2

# Lizzie opened the SGF at its first node. The mouse wheel over the board steps through the
# game (Lizzie 0.7.4 under Xvfb ignored synthetic key presses): four moves forward, one back
# (Lizzie sends undo) and forward again, each while the engine analyses.
wheel() { xdotool mousemove 640 400 click "$1"; sleep 1.5; }
for _ in 1 2 3 4; do wheel 5; done
wheel 4
wheel 5
xdotool mousemove 1275 795   # off the board: a hovered candidate would draw its variation
sleep "$ANALYSE_S"

mkdir -p "$(dirname "$SHOT")"
xwd -root -silent >"$WORK/screen.xwd"
xwdtopnm "$WORK/screen.xwd" 2>/dev/null | pnmscale -width 960 | pnmquant 64 2>/dev/null | pnmtopng >"$SHOT"
grep -E '^ *[0-9.]+ > ' "$WORK/gtp.log" | sed -E 's/^ *[0-9.]+ > //' >"$WORK/commands.txt"
echo "screenshot: $SHOT ($(wc -c <"$SHOT") bytes)"
echo "commands Lizzie sent: $WORK/commands.txt ($(wc -l <"$WORK/commands.txt") lines)"

# Lizzie is stopped by the EXIT trap (SIGTERM; it sends no quit then): the engine sees its
# stdin close, stops analysing and exits.
