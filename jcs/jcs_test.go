package jcs

import "testing"

func TestCanonicalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"b":1,"a":[true,false,null]}`, `{"a":[true,false,null],"b":1}`},
		{` { "z" : "x\u00e9\n" , "é" : 1.50 } `, `{"z":"xé\n","é":1.5}`},
		// RFC 8785 §3.2.3 sorting example: by UTF-16 code units.
		{`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"},
		{`[1e21,1e20,0.000001,1e-7,-0,123.456e2,5e-324,1.7976931348623157e308]`,
			`[1e+21,100000000000000000000,0.000001,1e-7,0,12345.6,5e-324,1.7976931348623157e+308]`},
		{`"\u001f<>&"`, `"\u001f<>&"`},
	}
	for _, c := range cases {
		got, err := Canonicalize([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{`{"a":1,"a":2}`, `{`, `[1,]`, `1 2`, `1e400`, `{"a":1} x`, `{"a":1}}`, `{"a":1},`, `{"a":1}]`} {
		if _, err := Canonicalize([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
