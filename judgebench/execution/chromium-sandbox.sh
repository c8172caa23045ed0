#!/bin/sh
# Starts Chromium inside bubblewrap for judgebench's WebRenderer: new network, pid, ipc and user
# namespaces (pages cannot reach any network), read-only /usr and /etc, private /tmp and /dev/shm.
# Playwright talks to the browser over inherited pipes, which bubblewrap keeps open.
# Mounted read-write: only the browser profile. Read-only: the rendered pages and the page libraries.
profile=""
for arg in "$@"; do
  case "$arg" in --user-data-dir=*) profile="${arg#--user-data-dir=}" ;; esac
done
exec bwrap --unshare-all --die-with-parent --new-session \
  --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
  --symlink usr/sbin /sbin --ro-bind /etc /etc --proc /proc --dev /dev --tmpfs /tmp --tmpfs /dev/shm \
  ${profile:+--bind "$profile" "$profile"} \
  --ro-bind "$JB_PAGES" "$JB_PAGES" --ro-bind "$JB_LIBS" "$JB_LIBS" \
  --clearenv --setenv HOME /tmp --setenv PATH /usr/bin:/bin \
  /usr/bin/chromium "$@"
