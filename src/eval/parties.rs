//! Data with known clusters for a linkage of more than two parties (`gramlink
//! corrupt --parties N`): each person (a record of the dataset) is held by
//! each party with a given probability (by one party at least), every copy
//! with its own `ed` random edits ([`crate::eval::corrupt`]), each party's
//! records in a seeded order.

use crate::alphabet::Alphabet;
use crate::dp::Randomness;

/// One party's records: (person, text), the person an index into the records
/// the copies were made from.
pub type PartyRecords = Vec<(u64, String)>;

/// `parties` parties' copies of `records`: person `i` is in each party with
/// probability `presence` (in per mille, 1 to 1000), in one drawn party when
/// the draws left it in none; each copy has `ed` edits, normalized onto
/// `alphabet` (a copy left empty is dropped, as a party would).
pub fn multi_party(
    records: &[String],
    parties: usize,
    presence: u32,
    ed: u32,
    alphabet: &Alphabet,
    rng: &mut Randomness,
) -> Vec<PartyRecords> {
    let presence = presence.clamp(1, 1000) as usize;
    let mut held = vec![Vec::new(); parties];
    for i in 0..records.len() {
        let mut any = false;
        for h in held.iter_mut() {
            if rng.below(1000) < presence {
                h.push(i);
                any = true;
            }
        }
        if !any && parties > 0 {
            held[rng.below(parties)].push(i);
        }
    }
    held.into_iter()
        .map(|people| {
            let mut copies: PartyRecords = people
                .into_iter()
                .map(|i| (i as u64, alphabet.normalize(&crate::eval::corrupt::corrupt(&records[i], ed, rng))))
                .filter(|(_, s)| !s.is_empty())
                .collect();
            let order = rng.permutation(copies.len());
            let mut shuffled = Vec::with_capacity(copies.len());
            for j in order {
                shuffled.push(std::mem::take(&mut copies[j]));
            }
            shuffled
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_person_is_held_and_every_copy_is_edited() {
        let al = Alphabet::default();
        let records: Vec<String> = (0..200).map(|i| format!("PERSON {}", "ABCDEFGHIJ".repeat(1 + i % 3))).collect();
        let copies = multi_party(&records, 4, 600, 1, &al, &mut Randomness::seeded(7));
        assert_eq!(copies.len(), 4);
        let mut held = vec![0; records.len()];
        for party in &copies {
            let mut seen = std::collections::HashSet::new();
            for (p, text) in party {
                assert!(seen.insert(*p), "a person twice in one party");
                held[*p as usize] += 1;
                assert_ne!(text, &records[*p as usize], "one edit changes the record");
            }
            // about 60 % of 200, with room for the draws
            assert!((90..=150).contains(&party.len()), "{}", party.len());
        }
        assert!(held.iter().all(|&h| h >= 1));
        assert_eq!(copies, multi_party(&records, 4, 600, 1, &al, &mut Randomness::seeded(7)));
    }
}
