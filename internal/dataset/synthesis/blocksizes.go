package synthesis

// blockSizes is the block size each hash id was first used with. Trace
// hash ids are mostly small and dense (0, 1, 2, ...), so those below
// denseBlockIDs are kept in a slice indexed by id, a few bytes each, where
// a map costs tens and a hash per lookup; the rest go to a map.
type blockSizes struct {
	dense  []int32 // size+1 by id; 0 = unseen
	sparse map[int]int
}

// denseBlockIDs bounds the ids kept in the slice (4 bytes each: 64 MB at
// most, grown as ids come).
const denseBlockIDs = 1 << 24

// see records size for id unless id has one already, and returns the
// size id has and whether it had one.
func (b *blockSizes) see(id, size int) (was int, seen bool) {
	if id >= 0 && id < denseBlockIDs && size < 1<<31-1 {
		if id >= len(b.dense) {
			b.dense = append(b.dense, make([]int32, max(id+1-len(b.dense), len(b.dense)))...)
			b.dense = b.dense[:cap(b.dense)]
		}
		if v := b.dense[id]; v != 0 {
			return int(v) - 1, true
		}
		b.dense[id] = int32(size + 1)
		return size, false
	}
	if b.sparse == nil {
		b.sparse = map[int]int{}
	}
	if v, ok := b.sparse[id]; ok {
		return v, true
	}
	b.sparse[id] = size
	return size, false
}
