"""Did-you-mean suggestions for misspelled names, fast enough for hundreds of mistakes against
thousands of names (Note [Suggestions]).

    index = NameIndex(declared_operators)
    index.close_match("ad_out")      # 'add_out'
"""
from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable, Optional

# Note [Suggestions]
# A suggestion is the name at the smallest edit distance (insertions, deletions,
# substitutions and swaps of neighbours; case ignored) within a bound that grows with the
# word's length: 1 up to 5 letters, 2 up to 8, 3 beyond. Comparing a word with every name
# is what made 480 errors against PyTorch's 2,500 operators take seconds (difflib did it).
# Instead the names are indexed by their letter pairs (the word padded with ^ and $, so the
# first and last letters count): one edit changes at most three pairs, so a name within
# distance d of the word shares all but 3d of the word's distinct pairs, and only names that
# do, and whose length is within d, are candidates. They are compared most-shared first, each
# against the best distance so far, and the search stops at the first whose missing pairs
# alone need as many edits as that best. A word too short for the pairs to rule anything out
# takes the names of lengths within d as candidates.


def _pairs(folded: str) -> set[str]:
    padded = f"^{folded}$"
    return {padded[i:i + 2] for i in range(len(padded) - 1)}


def _bound(word: str) -> int:
    return 1 if len(word) <= 5 else 2 if len(word) <= 8 else 3


def edit_distance(a: str, b: str, bound: int) -> int:
    """The optimal-string-alignment distance between a and b, or bound + 1 when above bound."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], previous2[j - 2] + 1)
        if min(row) > bound:
            return bound + 1
        previous2, previous = previous, row
    return min(previous[-1], bound + 1)


class NameIndex:
    """The names a misspelling is checked against, indexed once. `comparisons` counts the edit
    distances computed, so tests can bound the work."""

    def __init__(self, names: Iterable[str]) -> None:
        self._names: list[str] = []        # folded, first spelling wins
        self._spelled: dict[str, str] = {}  # folded -> as spelled
        self._by_pair: dict[str, list[int]] = defaultdict(list)
        self._by_length: dict[int, list[int]] = defaultdict(list)
        for name in names:
            folded = name.lower()
            if folded in self._spelled:
                continue
            self._spelled[folded] = name
            index = len(self._names)
            self._names.append(folded)
            self._by_length[len(folded)].append(index)
            for pair in _pairs(folded):
                self._by_pair[pair].append(index)
        self.comparisons = 0

    def close_match(self, word: str) -> Optional[str]:
        """The name `word` is most likely a misspelling of, or None: the closest, and among
        equally close ones the one sharing the most letter pairs with it, then the first."""
        folded = word.lower()
        if folded in self._spelled:
            return self._spelled[folded]
        bound = _bound(folded)
        pairs = _pairs(folded)
        best, best_distance = None, bound + 1
        for shared, index in self._candidates(folded, pairs, bound):
            if (len(pairs) - shared + 2) // 3 >= best_distance:
                break  # the pairs it lacks already need as many edits: so do the rest's
            self.comparisons += 1
            distance = edit_distance(folded, self._names[index], best_distance - 1)
            if distance < best_distance:
                best, best_distance = index, distance
        return self._spelled[self._names[best]] if best is not None else None

    def _candidates(self, folded: str, pairs: set[str], bound: int) -> list[tuple[int, int]]:
        """(shared pairs, index) of the names that may lie within `bound`, most shared first."""
        lengths = range(len(folded) - bound, len(folded) + bound + 1)
        shared: dict[int, int] = defaultdict(int)
        if len(pairs) - 3 * bound <= 0:  # too short for the pairs to rule anything out
            for n in lengths:
                for index in self._by_length.get(n, ()):
                    shared[index] = 0
            for pair in pairs:
                for index in self._by_pair.get(pair, ()):
                    if index in shared:
                        shared[index] += 1
        else:
            for pair in pairs:
                for index in self._by_pair.get(pair, ()):
                    shared[index] += 1
        needed = len(pairs) - 3 * bound
        found = [(-count, index) for index, count in shared.items()
                 if count >= needed and len(self._names[index]) in lengths]
        return [(-negative, index) for negative, index in sorted(found)]


class LazyNameIndex:
    """A NameIndex built on its first lookup, from names(): a file without mistakes never pays
    for indexing thousands of names."""

    def __init__(self, names: Callable[[], Iterable[str]]) -> None:
        self._names = names
        self._index: Optional[NameIndex] = None

    def close_match(self, word: str) -> Optional[str]:
        if self._index is None:
            self._index = NameIndex(self._names())
        return self._index.close_match(word)
