package nemesis

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// TestUntilRoundTrip: every field of a condition survives being recorded
// (what the runner writes into the history) and replayed (what a
// finding's repro waits for), so a field added to Condition cannot be
// dropped from repros unnoticed.
func TestUntilRoundTrip(t *testing.T) {
	var c Condition
	v := reflect.ValueOf(&c).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch f.Kind() {
		case reflect.Int32:
			f.SetInt(2)
		case reflect.String:
			f.SetString(StruckOutOfISR)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]int32{1, 2}))
		case reflect.Pointer:
			p := reflect.New(f.Type().Elem())
			switch p.Elem().Kind() {
			case reflect.Bool:
				p.Elem().SetBool(true)
			default:
				p.Elem().SetInt(7)
			}
			f.Set(p)
		default:
			t.Fatalf("field %s of kind %s: teach this test to set it", v.Type().Field(i).Name, f.Kind())
		}
	}
	rec := untilRecord(c.WithStruck([]int32{0}), true, 6*time.Second)
	var back histories.Until
	b, err := json.Marshal(rec.Details())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	st := StepFromUntil(back)
	if st.Until == nil || !reflect.DeepEqual(*st.Until, c) || st.Timeout.Std() != 6*time.Second || !st.Optional {
		t.Errorf("round trip: %+v (timeout %s, optional %v)\nwant %+v", st.Until, st.Timeout, st.Optional, c)
	}
}
