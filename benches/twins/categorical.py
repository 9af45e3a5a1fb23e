#!/usr/bin/env python3
"""Categorical tables for the KRIMP measurements of docs/TWINS.md.

- FEBRL (data/febrl/dataset{1,2,3}.csv): state, postcode area (first two
  digits), decade of birth, street-number band, whether address_2 is present;
  an empty or unparsable value is its own category "".
- UCI iris and Pima Indians diabetes, from the ARFF files that Debian's `weka`
  package ships (/usr/share/doc/weka/examples/{iris,diabetes}.arff; fetch with
  `apt-get download weka && dpkg-deb -x weka_*.deb x`): each numeric attribute
  in 4 equal-frequency bins (the paper used the LUCS-KDD discretisation, which
  is not shipped by any registry package), the class as it is.

usage: categorical.py febrl OUT_DIR | categorical.py arff FILE.arff OUT.csv
"""
import csv, sys, os


def febrl(out_dir):
    for n in (1, 2, 3):
        src = f"data/febrl/dataset{n}.csv"
        rows = list(csv.reader(open(src), skipinitialspace=True))
        head, body = rows[0], rows[1:]
        ix = {h.strip(): i for i, h in enumerate(head)}
        out = [["state", "postcode_area", "birth_decade", "street_number_band", "has_address_2"]]
        for r in body:
            g = lambda c: r[ix[c]].strip()
            dob = g("date_of_birth")
            decade = dob[:3] + "0s" if len(dob) == 8 and dob.isdigit() else ""
            sn = g("street_number")
            band = "" if not sn.isdigit() else ("1-9" if int(sn) < 10 else "10-99" if int(sn) < 100 else "100+")
            pc = g("postcode")
            out.append([g("state"), pc[:2] if len(pc) == 4 else "", decade, band, "yes" if g("address_2") else "no"])
        path = os.path.join(out_dir, f"febrl{n}-categorical.csv")
        csv.writer(open(path, "w", newline="")).writerows(out)
        print(path, len(out) - 1)


def arff(src, dst, bins=4):
    names, kinds, data = [], [], []
    for line in open(src):
        line = line.strip()
        if not line or line.startswith("%"):
            continue
        low = line.lower()
        if low.startswith("@attribute"):
            parts = line.split(None, 2)
            names.append(parts[1].strip("'"))
            kinds.append("numeric" if parts[2].strip().lower() in ("numeric", "real", "integer") else "nominal")
        elif low.startswith("@data") or low.startswith("@relation"):
            continue
        else:
            data.append([v.strip() for v in line.split(",")])
    cols = []
    for c, kind in enumerate(kinds):
        vals = [r[c] for r in data]
        if kind == "numeric":
            xs = sorted(float(v) for v in vals)
            cuts = [xs[(len(xs) * b) // bins] for b in range(1, bins)]
            cols.append([f"{names[c]}{sum(float(v) >= t for t in cuts)}" for v in vals])
        else:
            cols.append(vals)
    with open(dst, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(names)
        w.writerows(zip(*cols))
    print(dst, len(data))


if __name__ == "__main__":
    if sys.argv[1] == "febrl":
        febrl(sys.argv[2])
    else:
        arff(sys.argv[2], sys.argv[3])
