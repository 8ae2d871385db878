package prototest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
)

// Filler sets every field of a value, at any depth, to random values: a
// pointer nil or not, a map nil, empty or with entries, every string and
// number distinct from the others.
type Filler struct {
	Rand *rand.Rand
	n    int
}

func (f *Filler) fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if f.Rand.IntN(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			f.fill(v.Field(i))
		}
	case reflect.String:
		f.n++
		v.SetString(fmt.Sprintf("s%d_%d", f.n, f.Rand.IntN(1000)))
	case reflect.Int, reflect.Int32, reflect.Int64:
		// Distinct by the counter, large and negative by the rest.
		f.n++
		v.SetInt(int64(f.n)<<32 | f.Rand.Int64N(1<<32) ^ -int64(f.Rand.IntN(2)))
	case reflect.Bool:
		v.SetBool(f.Rand.IntN(2) == 0)
	case reflect.Map:
		switch f.Rand.IntN(3) {
		case 0:
			v.SetZero()
		default:
			m := reflect.MakeMap(v.Type())
			for range f.Rand.IntN(3) {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				f.fill(k)
				f.fill(e)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	default:
		panic("filler: no case for " + v.Type().String())
	}
}

// NewFiller is a Filler whose values are the same on every run for a seed.
func NewFiller(seed1, seed2 uint64) *Filler {
	return &Filler{Rand: rand.New(rand.NewPCG(seed1, seed2))}
}

// Fill sets every field of *p.
func (f *Filler) Fill(p any) { f.fill(reflect.ValueOf(p).Elem()) }
