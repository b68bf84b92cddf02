# rules.py: the rules file of mct(7) (LABEL<TAB>PREDICATE, first match wins, label - = none) for the
# references of the benchmark. The file and its --where predicates are read by tests/filter_oracle.py,
# the tests' independent oracle, never by a reading of our own: classifier() asks it for the category
# of an event (the python3 reference), jq() and mlr() translate its parse for jq (a def category)
# and mlr (a put expression).
#
#   python3 rules.py jq RULES    prints the jq module (def category: ...;) of RULES
#   python3 rules.py mlr RULES   prints the mlr put expression ($category = LABEL, "-" for none)
# Exit 1 when a predicate cannot be translated (the jq and mlr category jobs are then skipped).
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, 'tests'))
import filter_oracle  # noqa: E402


class Untranslatable(Exception):
    pass


def classifier(path):
    """category(event) -> label or None, by filter_oracle; cached on the values the rules read."""
    rules = filter_oracle.load_rules(path)
    ctx = filter_oracle.Ctx(None, rules)
    paths = []
    cacheable = True
    for c in conditions(rules):
        if c.field.kind != 'path':	# rel, end, category: not a plain value of the event
            cacheable = False
        elif c.field.segs not in paths:
            paths.append(c.field.segs)
    cache = {}

    def value(e, segs):
        for s in segs:
            if not isinstance(e, dict) or s not in e:
                return filter_oracle.MISSING
            e = e[s]
        return type(e), e		# 1, 1.0 and true are different texts

    def category(e):
        if not cacheable:
            return filter_oracle.category(e, ctx)
        key = tuple(value(e, p) for p in paths)
        try:
            return cache[key]
        except KeyError:
            label = cache[key] = filter_oracle.category(e, ctx)
        except TypeError:		# an unhashable value (an object or array): no cache
            label = filter_oracle.category(e, ctx)
        return label
    return category


def conditions(rules):
    for _, e in rules:
        for ands in e:
            yield from ands


def plain(c):
    """The condition c (filter_oracle.Cond) on a plain field, else Untranslatable."""
    if c.field.kind != 'path':
        raise Untranslatable('the field %s' % c.field.text)
    if c.op != 'exists' and c.op not in ('~', '!~') and (c.istime or c.tuple is not None):
        raise Untranslatable('%s %s %s' % (c.field.text, c.op, c.text))
    return c.field.segs


def translate(path, cond):
    """[(predicate, label)] of the rules file, cond(c) the text of one condition; each
    alternative a list of conditions, the alternatives a list."""
    return [([[cond(c) for c in ands] for ands in e], label) for label, e in filter_oracle.load_rules(path)]


def jq_cond(c):
    g = 'getpath(%s)' % json.dumps(plain(c))
    if c.op == 'exists':
        return '(%s != null)' % g
    txt = '[%s | if type == "string" then . elif type == "null" then empty else tojson end]' % g
    if c.op in ('~', '!~'):
        t = 'test(%s)' % json.dumps(c.text)
        x = t if c.op == '~' else '(%s | not)' % t
    elif c.isnum:		# a number, or a string holding one, numerically; else as text
        x = ('((tonumber? // null) as $n | if $n != null then $n %s %s else . %s %s end)'
             % (c.op, json.dumps(float(c.num)), c.op, json.dumps(c.text)))
    else:
        x = '(. %s %s)' % (c.op, json.dumps(c.text))
    miss = 'true' if c.op in ('!=', '!~') else 'false'
    return '(%s | if length == 0 then %s else (.[0] | %s) end)' % (txt, miss, x)


def jq(path):
    s = 'def category:\n'
    for i, (alts, label) in enumerate(translate(path, jq_cond)):
        cond = ' or '.join('(%s)' % ' and '.join(a) for a in alts)
        s += '  %s %s then %s\n' % ('if' if i == 0 else 'elif', cond, json.dumps(label))
    return s + '  else null end;\n'


def mlr_cond(c):
    segs = plain(c)
    f = '$' + segs[0] if re.match(r'^[A-Za-z_][A-Za-z_0-9]*$', segs[0]) else '${%s}' % segs[0]
    f += ''.join('[%s]' % json.dumps(p) for p in segs[1:])
    if c.op == 'exists':
        return 'is_present(%s)' % f
    val = json.dumps(c.text)
    if c.op == '~':
        return '(is_present(%s) && string(%s) =~ %s)' % (f, f, val)
    if c.op == '!~':
        return '(is_absent(%s) || !(string(%s) =~ %s))' % (f, f, val)
    if c.isnum:
        return '(is_present(%s) && %s %s %s)' % (f, f, c.op, json.dumps(float(c.num)))
    if c.op == '!=':
        return '(is_absent(%s) || string(%s) != %s)' % (f, f, val)
    return '(is_present(%s) && string(%s) %s %s)' % (f, f, c.op, val)


def mlr(path):
    s = ''
    for i, (alts, label) in enumerate(translate(path, mlr_cond)):
        cond = ' || '.join('(%s)' % ' && '.join(a) for a in alts)
        s += '%s (%s) {\n  $category = %s\n}' % ('if' if i == 0 else ' elif', cond, json.dumps(label or '-'))
    return s + '\n'


if __name__ == '__main__':
    try:
        sys.stdout.write({'jq': jq, 'mlr': mlr}[sys.argv[1]](sys.argv[2]))
    except (Untranslatable, filter_oracle.Usage) as e:
        sys.exit('rules.py: %s: cannot translate %s' % (sys.argv[2], e))
