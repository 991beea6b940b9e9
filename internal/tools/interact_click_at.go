package tools

// click_at clicks a point of the viewport, whatever is there: a canvas, a
// map, a point read off a screenshot. Its page verb is
// extension/actions/verbs/click_at.js.
var _ = addPageAction(func() action {
	return dom[clickAtArgs]("click_at", "viewport px", false)
})

// clickAtArgs are a point in CSS pixels from the top left corner of the
// viewport (of frame's document, with frame), as a screenshot at device
// pixel ratio 1 shows it.
type clickAtArgs struct {
	X          float64 `json:"x" required:"true" min:"0"`
	Y          float64 `json:"y" required:"true" min:"0"`
	Frame      string  `json:"frame,omitempty" list:"-"`
	tabArg     `list:"-"`
	dialogArgs `list:"-"`
	settleArgs `list:"-"`
}
