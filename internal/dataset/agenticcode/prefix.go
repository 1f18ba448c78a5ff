package agenticcode

import "fmt"

// The hash-id space of the layered prefix model, as AIPerf lays it out:
// L1 takes ids [0, l1Blocks); group g's L1.5 blocks start at
// l1Blocks + g*maxGroupBlocks; session i's L2 and L3 blocks start at
// l1Blocks + maxGroups*maxGroupBlocks + i*maxSessionBlocks. Ids of
// different layers, groups and sessions therefore never collide.
const (
	maxGroupBlocks   = 200
	maxGroups        = 1_000
	maxSessionBlocks = 4_000
)

// prefixes allocates the hash ids of a turn's blocks.
type prefixes struct {
	blockSize         int
	l1Blocks          int
	l15Blocks         int
	sessionRegionBase int
}

func newPrefixes(c Cache, blockSize int) prefixes {
	l1 := ceilDiv(c.Layer1Tokens, blockSize)
	return prefixes{blockSize: blockSize, l1Blocks: l1, l15Blocks: ceilDiv(c.Layer15Tokens, blockSize),
		sessionRegionBase: l1 + maxGroups*maxGroupBlocks}
}

// prefixBlocks is the shared prefix (L1 + L1.5) in blocks; session
// content starts on the next block, so a shared id is never a row's
// partial last block.
func (p prefixes) prefixBlocks() int { return p.l1Blocks + p.l15Blocks }

// prefixTokens is the shared prefix's span in whole blocks.
func (p prefixes) prefixTokens() int { return p.prefixBlocks() * p.blockSize }

// turnIDs returns a turn's hash ids: ceil(input/blockSize) of them, L1,
// then the group's L1.5, then the session's blocks: those of the
// previous turn (prev, nil on a session's first turn) extended with new
// consecutive ids, or cut to the length needed.
func (p prefixes) turnIDs(session, group, input int, prev []int) ([]int, error) {
	total := 0
	if input > 0 {
		total = ceilDiv(input, p.blockSize)
	}
	out := make([]int, 0, total)
	l1 := min(p.l1Blocks, total)
	for i := range l1 {
		out = append(out, i)
	}
	rest := total - l1
	if rest <= 0 {
		return out, nil
	}
	l15 := min(p.l15Blocks, rest)
	base := p.l1Blocks + group*maxGroupBlocks
	for i := range l15 {
		out = append(out, base+i)
	}
	need := rest - l15
	if need == 0 {
		return out, nil
	}
	if need > maxSessionBlocks {
		return nil, fmt.Errorf("input_length=%d needs %d session blocks, more than the %d a session has", input, need, maxSessionBlocks)
	}
	sbase := p.sessionRegionBase + session*maxSessionBlocks
	if prev == nil {
		for i := range need {
			out = append(out, sbase+i)
		}
		return out, nil
	}
	if fresh := need - len(prev); fresh > 0 {
		next := sbase
		if len(prev) > 0 {
			next = prev[len(prev)-1] + 1
		}
		out = append(out, prev...)
		for i := range fresh {
			out = append(out, next+i)
		}
		return out, nil
	}
	return append(out, prev[:need]...), nil
}

// sessionIDs returns what follows L1 and L1.5 in a turn's hash ids.
func (p prefixes) sessionIDs(ids []int) []int {
	if len(ids) <= p.prefixBlocks() {
		return []int{}
	}
	return ids[p.prefixBlocks():]
}
