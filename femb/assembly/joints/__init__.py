"""Joints as holonomic constraints Φ(u, t) = 0: the generic constraint set and the joint
kinds behind one evaluator protocol.

========================  ==============================================================
module                    holds
========================  ==============================================================
``protocol``              ``JointEvaluator``: what every joint kind provides (equations,
                          Jacobian, curvature, exact discrete Jacobian), shapes and units
``constraint_set``        ``ConstraintSet``: all joint rows of a model, Jacobian patterns,
                          sparse and dense blocks, joint names of rows
``scalar``                distance, on_line, coincide, linear (2-D and 3-D models)
``planar``                body_point, slider (2-D nodes with a rotation)
``spatial``               spherical, revolute, universal, cylindrical, prismatic (3-D)
========================  ==============================================================
"""
from femb.assembly.joints.constraint_set import EVALUATORS, ConstraintSet
from femb.assembly.joints.planar import BodyPoint2D, Slider2D
from femb.assembly.joints.protocol import JointEvaluator
from femb.assembly.joints.scalar import ScalarJoints, line_normals
from femb.assembly.joints.spatial import Joints3D, joint_frame

__all__ = ["ConstraintSet", "EVALUATORS", "JointEvaluator", "ScalarJoints", "BodyPoint2D", "Slider2D", "Joints3D",
           "line_normals", "joint_frame"]
