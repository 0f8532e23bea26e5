# Generates the bad-input corpus (cases.json and the files it names) from the built-in
# quickstart scenario: run it from the repository root with python3 after changing it.
import os, re, json
Q = open('scenarios/library/quickstart.yaml').read()
QL = Q.split('\n')
out_dir = 'scenarios/testdata/badinput'
cases = []   # (name, exit, want, args)
files = {}

def lineno(prefix):
    for i, l in enumerate(QL):
        if l.startswith(prefix):
            return i + 1
    raise Exception(prefix)

def replace_value(name, prefix, newval, what=None, col=None):
    n = lineno(prefix)
    l = QL[n-1]
    k = l.index(':')
    vcol = k + 3
    lines = list(QL)
    lines[n-1] = l[:k+2] + newval
    files[name] = '\n'.join(lines)
    c = col if col is not None else vcol
    cases.append((name, 2, r'^%s\.yaml:%d:%d: (?:found )?' % (re.escape(name), n, c) + (what or ''), ['validate', name + '.yaml']))

def edit(name, text, line, col, what='', exitc=2, cmd='validate'):
    files[name] = text
    if line > 0 and col > 0:
        loc = r'^%s\.yaml:%d:%d: ' % (re.escape(name), line, col)
    elif line > 0:
        loc = r'^%s\.yaml:%d:\d+: ' % (re.escape(name), line)
    elif line == 0:
        loc = r'^%s\.yaml:\d+:\d+: ' % re.escape(name)
    else:
        loc = r'^%s\.yaml: ' % re.escape(name)
    cases.append((name, exitc, loc + '.*' + what, [cmd, name + '.yaml']))

# --- bad values of top-level and nested keys (value column)
for i, v in enumerate(['-1m', '0s', '3x', 'banana', '""', '1e309', '[1m]', '{a: 1}', 'true', '99999999999999999999ms', '1.5.2m', '-0s', '1y']):
    replace_value('duration-%02d' % i, 'duration:', v, 'duration: ')
for i, v in enumerate(['-1m', '3x', '[6m]', 'forever', '400d']):
    replace_value('heal-%02d' % i, 'heal:', v, 'heal: ')
for i, v in enumerate(['-1', 'x', '1.5', '18446744073709551616', '[1]']):
    replace_value('seed-%02d' % i, 'seed:', v, 'seed: ')
for i, v in enumerate(['0', '-1', '10001', 'x', '2.5', '[2]', '99999999999999999999']):
    replace_value('partitions-%02d' % i, '    partitions:', v, r'topics\[0\]\.partitions: ')
for i, v in enumerate(['0/s', '-5/s', '100/x', 'fast', '1e400/s', '100000000/s', '[100/s]']):
    replace_value('rate-%02d' % i, '    rate:', v, r'producers\[0\]\.rate: ')
for i, v in enumerate(['0', '-1', '1000001', 'ten', '1.5']):
    replace_value('batch-%02d' % i, '    batch_records:', v, r'producers\[0\]\.batch_records: ')
for i, v in enumerate(['-1', '100001', '100000', 'x', '3.5', '[3]']):
    replace_value('count-%02d' % i, '        count:', v, r'groups\[0\]\.consumers\[0\]\.count: ')
for i, v in enumerate(['2', '-0.1', '1/0', 'x', '150%', '0/0']):
    replace_value('pb-%02d' % i, '            p_b:', v, r'groups\[0\]\.consumers\[0\]\.processing\.bimodal\.p_b: ')
for i, v in enumerate(['-1m', 'x', '[1m]']):
    replace_value('at-%02d' % i, '    at:', v, r'faults\[0\]\.at: ')
for i, v in enumerate(['x', '-5s']):
    replace_value('restart-%02d' % i, '    restart_after:', v, r'faults\[0\]\.restart_after: ')
for i, v in enumerate(['nobody', 'worker-9', '[worker-1]']):
    replace_value('target-%02d' % i, '    target:', v, r'faults\[0\]\.target: ')
for i, v in enumerate(['explode', '""', '3']):
    replace_value('faultkind-%02d' % i, '  - kind: kill', v, r'faults\[0\]\.kind: ', col=11)
for i, v in enumerate(['queue', '1', 'Share']):
    replace_value('grouptype-%02d' % i, '    type:', v, r'groups\[0\]\.type: ')
for i, v in enumerate(['[nope]', 'orders']):
    replace_value('grouptopics-%02d' % i, '    topics: [orders]', v, r'groups\[0\]\.topics', col=(14 if v.startswith('[') else 13))
for i, v in enumerate(['scripted-ish', '7']):
    replace_value('kind-%02d' % i, 'kind:', v, 'kind: ')

# --- kafka section values (inserted after seed line)
sl = lineno('seed:')
for i, (k, v) in enumerate([('share.record.lock.duration.ms', '0'), ('share.record.lock.duration.ms', '-1'), ('share.record.lock.duration.ms', 'long'),
        ('group.share.delivery.count.limit', '50'), ('group.share.delivery.count.limit', '1'), ('group.share.partition.max.record.locks', '0'),
        ('version', '"3.9"'), ('version', '5'), ('bug', 'nonesuch'), ('share.auto.offset.reset', 'sometimes'),
        ('share.isolation.level', 'maybe'), ('share.record.lock.duration.ms', '99999999999999999999')]):
    lines = list(QL)
    lines[sl-1:sl-1] = ['kafka:', '  %s: %s' % (k, v)]
    name = 'kafka-%02d' % i
    edit(name, '\n'.join(lines), sl + 1, len(k) + 5, r'kafka\.' + re.escape(k) + ': ')

# --- unknown keys, with their position (the key)
def insert_line(name, before_prefix, text, col, what):
    n = lineno(before_prefix)
    lines = list(QL)
    lines[n-1:n-1] = [text]
    edit(name, '\n'.join(lines), n, col, what)
insert_line('unknown-top', 'duration:', 'durration: 3m', 1, 'durration: .*did you mean "duration"')
insert_line('unknown-topic-key', '    partitions:', '    partitons: 2', 5, r'topics\[0\]\.partitons: ')
insert_line('unknown-producer-key', '    rate:', '    rat: 100/s', 5, r'producers\[0\]\.rat: ')
insert_line('unknown-consumer-key', '        count:', '        cuont: 3', 9, r'groups\[0\]\.consumers\[0\]\.cuont: ')
insert_line('unknown-fault-key', '    at:', '    att: 1m', 5, r'faults\[0\]\.att: ')
insert_line('dup-key', 'heal:', 'duration: 4m', 1, 'duration')
insert_line('scripted-key-in-workload', 'duration:', 'steps: []', 1, 'steps')
insert_line('relax-ranges', 'duration:', 'relax_ranges: true', 1, 'relax_ranges')
insert_line('max-events-0', 'duration:', 'max_events: 0', 13, 'max_events: ')
insert_line('brokers-0', 'duration:', 'brokers: 0', 10, 'brokers: ')
insert_line('brokers-x', 'duration:', 'brokers: many', 10, 'brokers: ')
insert_line('metrics-interval-0', 'duration:', 'metrics_interval: 0s', 19, 'metrics_interval: ')
insert_line('checks-unknown', 'duration:', 'checks: [nonesuch]', 10, 'checks')

# --- YAML structure
edit('tab-indent', Q.replace('    partitions: 2', '\tpartitions: 2'), lineno('    partitions:'), 1, 'found a tab in the indentation')
edit('tab-after-spaces', Q.replace('    partitions: 2', '  \t  partitions: 2'), lineno('    partitions:'), 3, 'found a tab')
edit('alias', Q.replace('    partitions: 2', '    partitions: &p 2').replace('        count: 3', '        count: *p'), lineno('        count:'), 16, 'alias')
edit('merge-key', Q.replace('  - name: orders-producer', '  - <<: {name: x}\n    name: orders-producer'), lineno('  - name: orders-producer'), 5, 'merge key')
edit('second-document', Q + '\n---\nname: two\n', len(QL) + 1, 1, 'a second YAML document')
edit('top-list', '- a\n- b\n', 1, 1, 'found a list')
edit('top-scalar', 'hello\n', 1, 1, '')
edit('top-number', '42\n', 1, 1, '')
edit('unclosed-bracket', Q.replace('[orders]', '[orders'), 0, 0, 'invalid YAML')
edit('unclosed-brace', Q.replace('{constant: 40s}', '{constant: 40s'), 0, 0, '')
edit('unclosed-quote', Q.replace('title: A small', 'title: "A small'), 0, 0, '')
edit('bad-indent', Q.replace('    topic: orders', '      topic: orders'), lineno('    topic: orders'), 0, '')
edit('deep-brackets', 'name: x\nfoo: ' + '[' * 20000 + '\n', 2, 206, 'brackets nested deeper than 200')
edit('deep-brackets-closed', 'name: x\nfoo: ' + '[' * 300 + ']' * 300 + '\n', 2, 206, 'nesting deeper than 200')
edit('deep-mapping', 'name: x\n' + ''.join('  ' * i + 'k%d:\n' % i for i in range(250)), 202, 401, 'nesting deeper than 200')
edit('deep-flow-maps', 'name: x\nfoo: ' + '{a: ' * 300 + '1' + '}' * 300 + '\n', 2, 0, 'nesting deeper than 200')
edit('empty', '', -1, 0, 'an empty file')
edit('comments-only', '# nothing here\n# at all\n', -1, 0, 'an empty')
edit('only-dashes', '---\n', 2, 1, 'no value')
edit('json-unknown-key', '{"kind": "workload", "bogus": 1}\n', 1, 22, 'bogus')
edit('crlf-unknown-key', Q.replace('\n', '\r\n').replace('duration: 3m', 'durration: 3m'), lineno('duration:'), 1, 'durration')
# bytes
def edit_bytes(name, data, line, col, what):
    files[name] = data
    loc = r'^%s\.yaml:%d:%d: ' % (re.escape(name), line, col) if line else r'^%s\.yaml:\d+:\d+: ' % re.escape(name)
    cases.append((name, 2, loc + '.*' + what, ['validate', name + '.yaml']))
qb = Q.encode()
n = lineno('    rate:')
edit_bytes('non-utf8', qb.replace(b'rate: 100/s', b'rate: 100\xff/s'), n, 14, 'found the byte 0xff, which is not UTF-8')
edit_bytes('latin1', qb.replace(b'title: A small', b'title: A sm\xe9ll'), lineno('title:'), 12, 'not UTF-8')
edit_bytes('nul-byte', qb.replace(b'    rate: 100/s', b'    rate: 100/s\x00'), n, 16, 'control character U\\+0000')
edit_bytes('bell', qb.replace(b'    rate: 100/s', b'    rate: \x07100/s'), n, 11, 'control character U\\+0007')
edit_bytes('escape', qb.replace(b'heal: 6m', b'heal: 6m\x1b[0m'), lineno('heal:'), 9, 'control character U\\+001B')
edit_bytes('del', qb.replace(b'heal: 6m', b'heal: 6m\x7f'), lineno('heal:'), 9, 'control character U\\+007F')
edit_bytes('png-header', b'\x89PNG\r\n\x1a\n' + bytes(range(256)), 1, 1, 'not UTF-8')
edit_bytes('gzip', b'\x1f\x8b\x08\x00' + b'\x00' * 20, 1, 1, 'control character')
edit_bytes('utf16-bom', '\ufeffname: x\n'.encode('utf-16-le'), 1, 1, 'not UTF-8')
edit_bytes('truncated-utf8', qb.replace(b'title: A small', b'title: A \xe2\x82small'), lineno('title:'), 10, 'not UTF-8')
edit_bytes('binary-middle', qb[:200] + bytes(range(0, 32)) + qb[200:], 0, 0, '')

# --- limits (file:line:col of the key crossing the line)
edit('limit-31-years', Q.replace('duration: 3m', 'duration: 11574d'), lineno('duration:'), 11, 'duration: found 11574d6m of virtual time')
edit('limit-heal', Q.replace('heal: 6m', 'heal: 400d'), lineno('heal:'), 7, 'heal: found 400d3m of virtual time')
edit('limit-100000-consumers', Q.replace('count: 3', 'count: 100000'), lineno('        count:'), 16, r'groups\[0\]\.consumers\[0\]\.count: found 100000 consumer instances')
edit('limit-partitions-x-consumers', Q.replace('partitions: 2', 'partitions: 10000').replace('count: 3', 'count: 19000'), lineno('    consumers:') + 1, 7, r'groups\[0\]\.consumers: found 10000 partitions × 19000 consumers')
edit('limit-million-per-second', Q.replace('rate: 100/s', 'rate: 1000000/s').replace('batch_records: 10', 'batch_records: 1000000'), n + 1, 20, r'producers\[0\]\.batch_records: found 1000000 records in one producer batch')
edit('limit-records', Q.replace('rate: 100/s', 'rate: 50000/s').replace('duration: 3m', 'duration: 1d'), n, 11, r'producers\[0\]\.rate: found ~4.32G records')
edit('limit-two-producers', Q.replace('producers:\n', 'producers:\n  - {name: p2, topic: orders, rate: 3000000/s}\n').replace('rate: 100/s', 'rate: 2500000/s'), lineno('producers:') + 1, 37, r'producers\[0\]\.rate: found producers writing 5500000 records/s')
edit('limit-two-specs', Q.replace('      - name: worker\n', '      - {name: extra, count: 15000}\n      - name: worker\n').replace('count: 3', 'count: 6000'), lineno('      - name: worker'), 30, r'groups\[0\]\.consumers\[0\]\.count: found 21000 consumer instances')

# --- big but valid: needs --yes (run), shown as the key-free estimate
cases.append(('confirm-big-run', 2, r'run quickstart is big \(estimated ~.* events, above 100M\): pass --yes', ['run', 'quickstart', '--set', 'duration=20d']))
cases.append(('confirm-history-memory', 2, r'the history checks would hold ~4.47 GB for the records in flight on 10000 share-partitions.*pass --yes', ['run', 'quickstart', '--set', 'topics.0.partitions=10000', '--set', 'producers.0.rate=10000/s', '--set', 'duration=40m', '--set', 'kafka.group.share.partition.max.record.locks=4000']))
cases.append(('max-events-incomplete', 3, r'^INCOMPLETE quickstart \(seed 1\): cut short', ['run', 'quickstart', '--set', 'max_events=1000']))
cases.append(('lin-time-limit-zero', 3, r'linearizability unknown on 4 share-partition', ['run', 'quickstart', '--lin-time-limit', '0s', '-q']))

# --- overrides (--set names the override)
for i, (kv, what) in enumerate([('duration=banana', 'duration: found'), ('duration=1000d', 'duration: found 1000d6m'), ('nosuch.key=1', '.*nosuch'),
        ('groups.0.consumers.0.count=-3', r'groups\[0\]\.consumers\[0\]\.count: found -3'), ('groups.9.name=x', r'.*groups'), ('kafka.bug=nonesuch', r'kafka\.bug: found nonesuch'), ('producers.0.rate=1e9/s', r'producers\[0\]\.rate: found 1e9/s, expected a rate of at most'),
        ('topics.0.partitions=0', r'topics\[0\]\.partitions: found 0'), ('seed=-1', 'seed: found'), ('faults.0.kind=explode', r'faults\[0\]\.kind: found explode')]):
    cases.append(('set-%02d' % i, 2, r'--set ' + re.escape(kv) + ': ' + what, ['run', 'quickstart', '--set', kv]))
cases.append(('set-no-equals', 2, r'--set "nonsense": expected path=value', ['run', 'quickstart', '--set', 'nonsense']))
cases.append(('set-empty-path', 2, r'--set "=3": expected path=value', ['run', 'quickstart', '--set', '=3']))

# --- flags
F = [
 ('flag-seed-negative', ['run', 'quickstart', '--seed', '-1'], r'--seed "-1": expected a whole number'),
 ('flag-seed-word', ['run', 'quickstart', '--seed', 'x'], r'--seed "x": expected a whole number'),
 ('flag-seed-float', ['run', 'quickstart', '--seed', '1.5'], r'--seed "1.5": expected a whole number'),
 ('flag-seed-huge', ['run', 'quickstart', '--seed', '18446744073709551616'], r'--seed "18446744073709551616": expected'),
 ('flag-lin-time-limit', ['run', 'quickstart', '--lin-time-limit', '5x'], r'--lin-time-limit "5x": expected a duration'),
 ('flag-unknown', ['run', 'quickstart', '--bogus'], r'unknown flag: --bogus'),
 ('flag-run-no-args', ['run'], r'run takes 1 argument'),
 ('flag-run-two-args', ['run', 'a', 'b'], r'run takes 1 argument'),
 ('flag-out-file', ['run', 'quickstart', '--out', '{OUTFILE}'], r'--out .*: is a file; expected a folder'),
 ('flag-seeds-word', ['sweep', 'quickstart', '--seeds', '1..x'], r'--seeds "1..x": "x" is not a seed'),
 ('flag-seeds-reversed', ['sweep', 'quickstart', '--seeds', '5..1'], r'--seeds "5..1": 5 is above 1'),
 ('flag-seeds-too-many', ['sweep', 'quickstart', '--seeds', '1..2000000'], r'--seeds "1..2000000": 2000000 seeds; expected at most'),
 ('flag-seeds-negative', ['sweep', 'quickstart', '--seeds', '-1..3'], r'--seeds "-1..3": "-1" is not a seed'),
 ('flag-shard-empty', ['sweep', 'quickstart', '--seeds', '1..4', '--shard', '5/5'], r'--shard 5/5: the sweep has 4 runs'),
 ('flag-shard-zero', ['sweep', 'quickstart', '--shard', '0/2'], r'--shard "0/2": expected i/n'),
 ('flag-shard-over', ['sweep', 'quickstart', '--shard', '3/2'], r'--shard "3/2": expected i/n'),
 ('flag-shard-word', ['sweep', 'quickstart', '--shard', 'half'], r'--shard "half": expected i/n'),
 ('flag-jobs-zero', ['sweep', 'quickstart', '--jobs', '0'], r'--jobs 0: expected at least 1'),
 ('flag-jobs-word', ['sweep', 'quickstart', '--jobs', 'x'], r'--jobs "x": expected a whole number'),
 ('flag-set-twice', ['sweep', 'quickstart', '--set', 'duration=20s', '--set', 'duration=30s'], r'duration is already swept'),
 ('flag-set-unbalanced', ['sweep', 'quickstart', '--set', 'swarm.kinds=[kill'], r'unbalanced brackets'),
 ('flag-set-empty-value', ['sweep', 'quickstart', '--set', 'duration=20s,,30s'], r'an empty value'),
 ('flag-metric', ['sweep', 'quickstart', '--metric', 'bogus'], r'--metric "bogus": expected one of'),
 ('flag-resume-no-out', ['sweep', 'quickstart', '--resume'], r'--resume, --force, --keep-runs and --series need --out'),
 ('flag-resume-force', ['sweep', 'quickstart', '--resume', '--force', '--out', 'x'], r'--resume and --force: give one'),
 ('flag-sweep-nonempty', ['sweep', 'quickstart', '--out', '{NONEMPTY}'], r'the folder is not empty; pass --resume'),
 ('flag-sweep-huge-grid', ['sweep', 'quickstart', '--seeds', '1..1000', '--set', 'duration=1s,2s,3s,4s,5s,6s,7s,8s,9s,10s,11s'], r'more than 10000 runs; pass --yes'),
 ('flag-sweep-scripted', ['sweep', 'release-at-limit-archives'], r'scripted'),
 ('flag-validate-none', ['validate'], r'validate needs at least one file'),
 ('flag-replay-nowhere', ['replay', 'nowhere'], r'reading result folder'),
 ('flag-report-nowhere', ['report', 'nowhere'], r'not a result folder'),
 ('flag-merge-none', ['merge'], r'merge needs at least one shard folder'),
 ('flag-unknown-command', ['frobnicate'], r'unknown command "frobnicate"'),
 ('flag-unknown-scenario', ['run', 'quickstrat'], r'quickstrat.*neither a file nor a built-in.*did you mean "quickstart"'),
 ('flag-shrink-passing', ['shrink', 'quickstart', '--set', 'duration=20s', '--max-runs', '2'], r'passes every check'),
]
for name, args, want in F:
    cases.append((name, 2, want, args))

# --- special files (created by the test)
S = [
 ('special-dev-zero', ['validate', '/dev/zero'], r'^/dev/zero: found more than 4194304 bytes'),
 ('special-dev-urandom', ['run', '/dev/urandom'], r'^/dev/urandom: found more than 4194304 bytes'),
 ('special-dev-null', ['validate', '/dev/null'], r'^/dev/null: found an empty file'),
 ('special-fifo', ['validate', '{FIFO}'], r'fifo: found a FIFO with no writer'),
 ('special-directory', ['validate', '{DIR}'], r': found a directory'),
 ('special-huge-file', ['validate', '{HUGE}'], r'huge.yaml: found a file of 5242880 bytes'),
 ('special-missing', ['validate', 'no-such-file.yaml'], r'^no-such-file.yaml: found an unreadable file \(no such file or directory\)'),
 ('special-stdin-binary', ['validate', '-'], r'^<stdin>:1:1: found the byte 0xff'),
 ('special-stdin-empty', ['validate', '-'], r'^<stdin>: found an empty file'),
]
stdin = {'special-stdin-binary': 'fffe', 'special-stdin-empty': ''}
for name, args, want in S:
    cases.append((name, 2, want, args))

for name, data in files.items():
    p = os.path.join(out_dir, name + '.yaml')
    with open(p, 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode())
with open(os.path.join(out_dir, 'cases.json'), 'w') as f:
    json.dump([{'name': n, 'exit': e, 'want': w, 'args': a, **({'stdin_hex': stdin[n]} if n in stdin else {})} for n, e, w, a in cases], f, indent=1, ensure_ascii=False)
print(len(cases), 'cases', len(files), 'files')
