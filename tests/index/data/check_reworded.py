#!/usr/bin/env python3
"""Check reworded_facts.tsv: each question shares at most one content stem.

Each line is FACT<TAB>QUESTION.  Words are stemmed with SQLite's own FTS5
Porter tokenizer; stop words are dropped before comparing.  Exits 1 if any
line shares two or more stems, if a line is malformed, or if the file does
not hold exactly 100 lines.
"""

import os
import sqlite3
import sys

EXPECTED_LINES = 100
TOKENIZER = 'porter unicode61 remove_diacritics 2'
STOP_WORDS = """
a an and are as at be by can did do does for from had has have how i in is
it its of on or that the their there these this to was we were what when
where which who why will with you your about into he she they his her them
our my me us been being than then so if not no any some all one also would
could should may might just only very after before over under out up down
off again more most other such own same too s t don
""".split()

DEFAULT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            'reworded_facts.tsv')


class Stemmer:
    """Stems text with an in-memory FTS5 table and its vocabulary."""

    def __init__(self):
        self.db = sqlite3.connect(':memory:')
        self.db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='%s')"
                        % TOKENIZER)
        self.db.execute(
            "CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        self.stop = set()
        self.stop = self.stems(' '.join(STOP_WORDS))

    def stems(self, text):
        """Return the set of stemmed non-stop-word terms of text."""
        self.db.execute('INSERT INTO t(rowid, x) VALUES (1, ?)', (text,))
        terms = {row[0] for row in self.db.execute('SELECT term FROM v')}
        self.db.execute('DELETE FROM t WHERE rowid = 1')
        return terms - self.stop


def check(path):
    """Check the file at path; return a process exit code."""
    stemmer = Stemmer()
    errors = []
    counts = {0: 0, 1: 0, 2: 0}
    with open(path, encoding='utf-8', newline='') as f:
        data = f.read()
    if data and not data.endswith('\n'):
        errors.append('file does not end with a newline')
    lines = data.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    for number, line in enumerate(lines, 1):
        fields = line.split('\t')
        if (len(fields) != 2 or not all(s.strip() for s in fields)
                or '"' in line or '\r' in line or not line.isascii()):
            errors.append('line %d: malformed' % number)
            continue
        shared = sorted(stemmer.stems(fields[0]) & stemmer.stems(fields[1]))
        counts[min(len(shared), 2)] += 1
        print('%3d  %d  %s' % (number, len(shared), ' '.join(shared)))
        if len(shared) >= 2:
            errors.append('line %d: shares %d stems' % (number, len(shared)))
    if len(lines) != EXPECTED_LINES:
        errors.append('expected %d lines, found %d'
                      % (EXPECTED_LINES, len(lines)))
    print('shared 0: %d, shared 1: %d, shared 2+: %d'
          % (counts[0], counts[1], counts[2]))
    for error in errors:
        print('FAIL: ' + error)
    if errors:
        return 1
    print('OK')
    return 0


if __name__ == '__main__':
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_PATH))
