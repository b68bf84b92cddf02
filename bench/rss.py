# rss.py FILE CMD [ARG...]: runs CMD, writes its peak RSS in KiB (ru_maxrss of os.wait4: the
# largest process of CMD's tree) to FILE, and exits as CMD did. bench/run.py's `rss` when GNU time
# is missing; GNU time starts faster, so it is preferred.
import os
import sys

pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    except OSError as e:
        sys.stderr.write('rss.py: %s: %s\n' % (sys.argv[2], e.strerror))
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], 'w') as f:
    f.write('%d\n' % usage.ru_maxrss)
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
