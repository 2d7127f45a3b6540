package state

import (
	"cmp"
	"slices"
)

// Compose returns d with the rows of other machines added after its own
// (host/mesh puts them there, already keyed and labelled), as one board:
// done rows are left out when showDone is off (docs/contract.md rule 6),
// at most MaxSessions are kept — the most relevant, as Snapshot ranks them
// — in the order given, and the summary is counted again from the rows
// carried, so it agrees with them. With no extra rows d is returned as it
// is. It shares no memory with extra.
func Compose(d Document, extra []Session, showDone bool) Document {
	if len(extra) == 0 {
		return d
	}
	all := make([]Session, 0, len(d.Sessions)+len(extra))
	all = append(all, d.Sessions...)
	for _, s := range extra {
		if s.Status == StatusDone && !showDone {
			continue
		}
		all = append(all, s.clone())
	}
	if len(all) > MaxSessions {
		idx := make([]int, len(all))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			return cmp.Or(
				cmp.Compare(Relevance(all[a].Status), Relevance(all[b].Status)),
				cmp.Compare(all[b].Since, all[a].Since),
			)
		})
		idx = idx[:MaxSessions]
		slices.Sort(idx)
		kept := make([]Session, len(idx))
		for i, j := range idx {
			kept[i] = all[j]
		}
		all = kept
	}
	d.Sessions, d.Summary = all, summarize(all)
	return d
}

// Without returns d less the rows whose ids are in drop, with the summary
// counted again from the rows left, so the tab's counts agree with them.
// It shares no memory with d's rows slice.
func Without(d Document, drop map[string]bool) Document {
	if len(drop) == 0 {
		return d
	}
	kept := make([]Session, 0, len(d.Sessions))
	for _, s := range d.Sessions {
		if !drop[s.ID] {
			kept = append(kept, s)
		}
	}
	d.Sessions, d.Summary = kept, summarize(kept)
	return d
}
