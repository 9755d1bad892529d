//! The set members of a bit mask kept as 64-bit words.

/// Indices of the set bits of `words` (bit `i` of word `w` is `w * 64 + i`),
/// in increasing order: a step per member, not per bit.
#[inline]
pub(super) fn ones(words: impl IntoIterator<Item = u64>) -> impl Iterator<Item = usize> {
    words.into_iter().enumerate().flat_map(|(w, bits)| {
        let mut rest = bits;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let i = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                w * 64 + i
            })
        })
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn ones_lists_set_bits_across_words() {
        let got: Vec<usize> = super::ones([0b1010, 0, 1 << 63 | 1]).collect();
        assert_eq!(got, [1, 3, 128, 191]);
    }
}
