package guardrail

// The conversions a derived number may make within a dimension, as data:
// "family unit size", the unit's size in the family's first unit, exact.
// Two units convert only within a family, by the ratio of their sizes. A
// unit of no family converts to nothing: temperature (an offset, not a
// ratio), currencies other than kr and öre (exchange rates move), units
// whose size is not one thing (gal, ton), and months against days (a
// month is not a fixed number of days). Data units are SI (1 GB = 1000
// MB); binary units (GiB) are a family of their own.
const convertSpec = `
	seconds second 1
	seconds ns 0.000000001
	seconds µs 0.000001
	seconds ms 0.001
	seconds minute 60
	seconds hour 3600
	seconds day 86400
	seconds week 604800
	seconds fortnight 1209600
	months month 1
	months quarter 3
	months half-year 6
	months year 12
	months decade 120
	months century 1200
	length m 1
	length µm 0.000001
	length mm 0.001
	length cm 0.01
	length dm 0.1
	length km 1000
	length mil 10000
	length in 0.0254
	length ft 0.3048
	length yd 0.9144
	length mi 1609.344
	length nmi 1852
	area m² 1
	area mm² 0.000001
	area cm² 0.0001
	area km² 1000000
	area ha 10000
	area ft² 0.09290304
	area acre 4046.8564224
	volume l 1
	volume ml 0.001
	volume cl 0.01
	volume dl 0.1
	volume cm³ 0.001
	volume m³ 1000
	mass g 1
	mass mg 0.001
	mass hg 100
	mass kg 1000
	mass t 1000000
	mass lb 453.59237
	mass oz 28.349523125
	speed km/h 1
	speed m/s 3.6
	speed mph 1.609344
	speed knot 1.852
	bits bit 1
	bits kbit 1000
	bits Mbit 1000000
	bits Gbit 1000000000
	bits Tbit 1000000000000
	bits B 8
	bits KB 8000
	bits MB 8000000
	bits GB 8000000000
	bits TB 8000000000000
	bits PB 8000000000000000
	bytes2 KiB 1
	bytes2 MiB 1024
	bytes2 GiB 1048576
	bytes2 TiB 1073741824
	bitrate bit/s 1
	bitrate kbit/s 1000
	bitrate Mbit/s 1000000
	bitrate Gbit/s 1000000000
	bitrate KB/s 8000
	bitrate MB/s 8000000
	bitrate GB/s 8000000000
	power W 1
	power kW 1000
	power MW 1000000
	energy Wh 1
	energy kWh 1000
	energy MWh 1000000
	frequency Hz 1
	frequency kHz 1000
	frequency MHz 1000000
	frequency GHz 1000000000
	kronor öre 1
	kronor SEK 100`

// scale is a unit's family (an index into the families, from 1; 0: none)
// and its size in the family's first unit.
type scale struct {
	family int
	size   dec
}

// scales are the scales of the units, by code (see names); the zero scale
// for a unit that converts to nothing.
var scales = func() []scale {
	out := make([]scale, len(names))
	families := map[string]int{}
	for spec := convertSpec; len(spec) > 0; {
		line := spec
		if i := indexByte(spec, '\n'); i >= 0 {
			line, spec = spec[:i], spec[i+1:]
		} else {
			spec = ""
		}
		var f []string
		fields(line, func(w string) { f = append(f, w) })
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			panic("guardrail: bad conversion row " + line)
		}
		fam, ok := families[f[0]]
		if !ok {
			fam = len(families) + 1
			families[f[0]] = fam
		}
		u := unitNamed(f[1])
		ok1 := u != 0
		size, ok2 := parseDec(f[2])
		if !ok1 || !ok2 {
			panic("guardrail: bad conversion row " + line)
		}
		out[u] = scale{fam, size}
	}
	for _, m := range periodMultiples {
		out[unitNamed(m.name)] = scale{families[m.family], dec{c: m.size}}
	}
	return out
}()

// minor is the unit of the hundredths of each currency that has one here,
// by the currency's code: cents of dollars and euros, pence of pounds.
// (Kronor and öre are a family of convertSpec.)
var minor = func() (m [256]uint8) {
	m[usd], m[eur], m[gbp] = cent, cent, penny
	return m
}()

// convertible reports whether a quantity in unit from can be written in
// unit to (both codes, different), and their scales. An amount of a
// currency converts to its hundredths ("$0.13" is 13 cents), but cents do
// not convert back: they name no currency.
func convertible(from, to uint8) (scale, scale, bool) {
	if int(from) >= len(scales) || int(to) >= len(scales) || from == to {
		return scale{}, scale{}, false
	}
	if minor[from] == to {
		return scale{-1, dec{100, 0}}, scale{-1, one}, true
	}
	a, b := scales[from], scales[to]
	return a, b, a.family != 0 && a.family == b.family
}
